import { isAbsolute, join } from 'node:path';
import { viaBridge } from '../helpers/gateway.js';
import { compareSurface, errorAsHermes, loadCases, normalise, normalisedAnswers, oneByOne, SurfaceFixture, type FidelityCase } from './harness.js';
import { writeFiles, type FileSpec } from './workspace.js';

// terminal (foreground) against Hermes' terminal_tool (tools/terminal_tool.py, local backend), over
// MCP. Each case gets a terminal session of its own on both sides (a task id for Hermes, a
// session_token for the gateway) whose first command enters the case's directory, so cwd and
// exports start alike; `before` commands then run in that session and only `args` is compared.

interface TerminalCase extends FidelityCase {
  files?: Record<string, FileSpec>;
  before?: string[];
  args: { command: string; workdir?: string; timeout?: number; background?: boolean };
  /** Compared over MCP only (an output too large for one execute_code script's own output). */
  mcp_only?: boolean;
}

const fx = new SurfaceFixture('term');
const cases = loadCases<TerminalCase>('terminal');

const dirOf = (c: TerminalCase) => join(fx.ws, c.id);
const argsOf = (c: TerminalCase) => ({ ...c.args, ...(c.args.workdir ? { workdir: isAbsolute(c.args.workdir) ? c.args.workdir : join(dirOf(c), c.args.workdir) } : {}) });
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const NOTICE = /\n\n\.\.\. \[OUTPUT TRUNCATED - [\d,]+ chars omitted out of [\d,]+ total\] \.\.\.\n\n/;

/**
 * A truncated output as its three parts, compared each on its own: the head (first 40%), the
 * notice, the tail (last 60%). The same on both sides; an output without the notice stays as it is.
 */
function splitTruncated(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || typeof (v as { output?: unknown }).output !== 'string') return v;
  const output = (v as { output: string }).output;
  const m = NOTICE.exec(output);
  if (!m) return v;
  return { ...v, output: { head: output.slice(0, m.index), notice: m[0], tail: output.slice(m.index + m[0].length) } };
}

const norm = (v: unknown) => splitTruncated(normalise(errorAsHermes(v), { replace: { [fx.ws]: '<ws>' }, volatile: ['pid', 'session_id'] }));

compareSurface<TerminalCase>({
  surface: 'terminal',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) writeFiles(dirOf(c), c.files);
    await fx.gateway();
  },
  async hermes(list) {
    const input = { cases: list.map((c) => ({ id: c.id, dir: dirOf(c), before: c.before ?? [], args: argsOf(c) })) };
    return normalisedAnswers(await fx.driver('terminal.py', input, { TERMINAL_ENV: 'local', TERMINAL_CWD: fx.ws }, 600_000), norm);
  },
  gateway: {
    // hermes_tools.terminal(command, timeout, workdir): the cases that are one foreground call
    // within execute_code's limits (no session state before it, no background, no timeout over 30 s),
    // run in the case's directory by workdir. A few per script, so one slow case cannot starve the rest.
    async hermes_tools(list) {
      const eligible = list.filter((c) => !c.mcp_only && !c.before?.length && c.args.background === undefined && (c.args.timeout ?? 0) <= 30);
      const out: Map<string, unknown> = new Map();
      for (let i = 0; i < eligible.length; i += 8) {
        const batch = eligible.slice(i, i + 8);
        const results = await fx.gw.hermesTools(batch.map((c) => ['terminal', { ...argsOf(c), workdir: argsOf(c).workdir ?? dirOf(c) }]));
        batch.forEach((c, k) => out.set(c.id, norm(results[k])));
      }
      return out;
    },
    mcp: (list) =>
      oneByOne(list, async (c) => {
        const client = fx.gw.client;
        const token = (await viaBridge(client, 'session_open')).data.session_token as string;
        const run = async (args: Record<string, unknown>) => (await viaBridge(client, 'terminal', args, token)).data;
        await run({ command: `cd ${quote(dirOf(c))}` });
        for (const command of c.before ?? []) await run({ command });
        const answer = await run(argsOf(c));
        await viaBridge(client, 'session_close', {}, token).catch(() => undefined);
        return norm(answer);
      }),
  },
});
