import { spawnSync } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { satisfies } from '@renovatebot/pep440';
import { viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { checksOf } from '../../scripts/differences-from-hermes.js';
import { compareSurface, divergences, errorAsHermes, loadCases, normalise, normalisedAnswers, oneByOne, SurfaceFixture, type FidelityCase } from './harness.js';
import { hidesAll } from './redaction-judge.js';
import { writeFiles, type FileSpec } from './workspace.js';

// terminal (foreground) against Hermes' terminal (tools/terminal_tool.py, its registered handler
// _handle_terminal, local backend), over MCP. Each case gets a terminal session of its own on both
// sides (a task id for Hermes, a session_token for the gateway) whose first command enters the
// case's directory, so cwd and exports start alike; `before` calls then run in that session and
// only `args` is compared. A case with `hermes:` (a PEP 440 specifier) is compared only with the
// Hermes versions it names: its arguments are not in the other versions' schema.

type TerminalArgs = { command: string; workdir?: string; timeout?: number; background?: boolean; [option: string]: unknown };

interface TerminalCase extends FidelityCase {
  files?: Record<string, FileSpec>;
  /** Calls before the compared one, in the same session: a command, or the call's arguments. */
  before?: Array<string | TerminalArgs>;
  args: TerminalArgs;
  /** Compared over MCP only (an output too large for one execute_code script's own output, or a call hermes_tools.terminal cannot make). */
  mcp_only?: boolean;
  hermes?: string;
}

/** What hermes_tools.terminal cannot pass (its signature is command, timeout, workdir; the RPC drops these). */
const NOT_FOR_SCRIPTS = ['background', 'pty', 'notify', 'notify_on_complete', 'watch_patterns', 'heartbeat', 'persist_on_release'];

const fx = new SurfaceFixture('term');
const cases = loadCases<TerminalCase>('terminal').filter((c) => c.hermes === undefined || satisfies(hermes().version, c.hermes));

const dirOf = (c: TerminalCase) => join(fx.ws, c.id);
const withWorkdir = (c: TerminalCase, args: TerminalArgs) => ({ ...args, ...(args.workdir ? { workdir: isAbsolute(args.workdir) ? args.workdir : join(dirOf(c), args.workdir) } : {}) });
const argsOf = (c: TerminalCase) => withWorkdir(c, c.args);
const beforeOf = (c: TerminalCase) => (c.before ?? []).map((b) => withWorkdir(c, typeof b === 'string' ? { command: b } : b));
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

/**
 * `{check: hides-all}` (redaction's leak check, redaction-judge.ts): the unredacted output of each case a
 * conditional divergence lists, its commands run one after another in bash in the case's directory,
 * as Hermes' local terminal runs them. Filled in setUp.
 */
const unredacted = new Map<string, string>();
function unredactedOutput(c: TerminalCase): string {
  const calls = [...beforeOf(c), argsOf(c)];
  if (calls.some((a) => Object.keys(a).some((k) => k !== 'command'))) throw new Error(`terminal ${c.id}: a hides-all case runs plain commands only`);
  const r = spawnSync('bash', ['-c', calls.map((a) => a.command).join('\n')], { cwd: dirOf(c), encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  if (r.status !== 0) throw new Error(`terminal ${c.id}: its commands failed in bash: ${r.stderr}`);
  return `${r.stdout}${r.stderr}`.trim();
}

compareSurface<TerminalCase>({
  surface: 'terminal',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) writeFiles(dirOf(c), c.files);
    const conditional = new Set(divergences().filter((d) => d.surface === 'terminal' && checksOf(d).includes('hides-all')).flatMap((d) => d.cases ?? []));
    for (const c of cases) if (conditional.has(c.id)) unredacted.set(c.id, unredactedOutput(c));
    await fx.gateway();
  },
  async hermes(list) {
    const input = { cases: list.map((c) => ({ id: c.id, dir: dirOf(c), before: beforeOf(c), args: argsOf(c) })) };
    return normalisedAnswers(await fx.driver('terminal.py', input, { TERMINAL_ENV: 'local', TERMINAL_CWD: fx.ws }, 600_000), norm);
  },
  gateway: {
    // hermes_tools.terminal(command, timeout, workdir): the cases that are one foreground call
    // within execute_code's limits (no session state before it, none of the options a script's
    // terminal cannot pass, no timeout over 30 s), run in the case's directory by workdir. A few per
    // script, so one slow case cannot starve the rest.
    async hermes_tools(list) {
      const eligible = list.filter((c) => !c.mcp_only && !c.before?.length && NOT_FOR_SCRIPTS.every((o) => c.args[o] === undefined) && (c.args.timeout ?? 0) <= 30);
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
        for (const args of beforeOf(c)) await run(args);
        const answer = await run(argsOf(c));
        await viaBridge(client, 'session_close', {}, token).catch(() => undefined);
        return norm(answer);
      }),
  },
  checks: {
    'hides-all': ({ caseId, field, gateway: g, hermes: h }) => {
      const raw = unredacted.get(caseId);
      return field === 'output' && raw !== undefined && typeof g === 'string' && typeof h === 'string' && hidesAll(raw, h, g);
    },
  },
});
