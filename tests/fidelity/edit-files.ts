import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
import { call, viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { writeFiles, type FileSpec } from './workspace.js';

// What the two file-editing surfaces (write_file, patch) share: every case starts from fresh files
// in a directory of its own for each way of reaching an implementation (Hermes' own function, the
// gateway over MCP, the gateway through hermes_tools), so each edits its own copy. The compared
// answer is the tool's result AND the case directory's files read back afterwards, byte for byte.

/** Cases per execute_code script (its tool-call limit is 50). */
const HERMES_TOOLS_BATCH = 40;

export interface EditCase extends FidelityCase {
  /** The case's files before the call (relative path -> spec). */
  files?: Record<string, FileSpec>;
  /**
   * The tool's arguments. A relative `path` is relative to the case's directory; `{dir}` in any
   * string argument (a V4A patch's headers) stands for that directory, `{rel}` for it relative to
   * the working directory (the workspace), for relative paths as a model sends them.
   */
  args: Record<string, unknown>;
  /**
   * What the task did before the compared call, in order (not compared themselves): a tool call
   * (`tool`, its `args` filled in as the case's, `path` defaulting to the case's), by the same task
   * or, with `task: other`, by another one; or `touch`: the case's file gets a new modification time
   * (its content unchanged), as an editor that saves without changes does.
   */
  steps?: Step[];
  /**
   * Compares the tool's published schema instead of a call: its property names and required ones,
   * as Hermes' registry renders them for a home without a configured model, and as tool_describe
   * gives the gateway's (over MCP only).
   */
  schema?: boolean;
}

/** A published schema, as the schema cases compare it. */
export function schemaSummary(parameters: unknown): { properties: string[]; required: string[] } {
  const p = (parameters ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  return { properties: Object.keys(p.properties ?? {}), required: [...(p.required ?? [])].sort() };
}

export type Step = { tool: string; args?: Record<string, unknown>; task?: 'same' | 'other' } | { touch: true };

/** A case's steps with their arguments filled in (argsIn), `path` defaulting to the case's. */
export function stepsIn(c: EditCase, dir: string, ws: string): Step[] {
  const path = argsIn(c, dir, ws).path;
  return (c.steps ?? []).map((s) => ('touch' in s ? s : { ...s, args: { path, ...argsIn({ ...c, args: s.args ?? {} }, dir, ws) } }));
}

/** Bumps `path`'s modification time by ten seconds, its content unchanged. */
export function touch(path: string): void {
  const st = statSync(path);
  const t = new Date(st.mtimeMs + 10_000);
  utimesSync(path, t, t);
}

/** A file read back: its text when it is valid UTF-8, else its bytes as base64. */
export type FileBack = string | { base64: string };

/** Every file (and empty directory, as `name/`) under `dir`, by relative path. */
export function readBack(dir: string): Record<string, FileBack> {
  const out: Record<string, FileBack> = {};
  const walk = (rel: string): void => {
    const entries = readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (entries.length === 0 && rel !== '') out[`${rel}/`] = '';
    for (const e of entries) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) {
        const bytes = readFileSync(join(dir, r));
        const text = bytes.toString('utf8');
        out[r] = Buffer.from(text, 'utf8').equals(bytes) ? text : { base64: bytes.toString('base64') };
      } else out[r] = { base64: '' };
    }
  };
  walk('');
  return out;
}

/** `value` with the `replace` strings replaced in its mapping keys too (V4A's lint is keyed by path). */
export function withKeysReplaced(value: unknown, replace: Record<string, string>): unknown {
  const pairs = Object.entries(replace).sort((x, y) => y[0].length - x[0].length);
  const key = (k: string) => pairs.reduce((s, [from, to]) => s.split(from).join(to), k);
  if (Array.isArray(value)) return value.map((v) => withKeysReplaced(v, replace));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [key(k), withKeysReplaced(v, replace)]));
}

/** The case's arguments with its directory (`dir`, under the working directory `ws`) filled in. */
export function argsIn(c: EditCase, dir: string, ws: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fill = (v: string) => v.split('{dir}').join(dir).split('{rel}').join(relative(ws, dir));
  for (const [k, v] of Object.entries(c.args)) {
    if (typeof v !== 'string') out[k] = v;
    else if (k === 'path' && v !== '' && !isAbsolute(v) && !v.startsWith('~') && !v.includes('{')) out[k] = join(dir, v);
    else out[k] = fill(v);
  }
  return out;
}

/**
 * The fidelity comparison of one file-editing surface: `tool` (write_file or patch) against Hermes'
 * function in drivers/`driver`, over MCP and through hermes_tools.
 */
export function compareEditSurface(surface: string, tool: string, driver: string): void {
  const fx = new SurfaceFixture(tool);
  const cases = loadCases<EditCase>(surface);
  const dirOf = (way: string, c: EditCase) => join(fx.ws, way, c.id);
  const answerOf = (way: string, c: EditCase, result: unknown) => {
    const dir = dirOf(way, c);
    const replace = { [dir]: '<dir>', [fx.ws]: '<ws>', [relative(fx.ws, dir)]: '<rel>' };
    return normalise(withKeysReplaced({ result: errorAsHermes(result), files: readBack(dir) }, replace), { replace });
  };

  compareSurface<EditCase>({
    surface,
    cases,
    fixture: fx,
    async setUp() {
      for (const way of ['hermes', 'mcp', 'mcp_session', 'hermes_tools']) for (const c of cases) writeFiles(dirOf(way, c), c.files);
      // The gateway fronts the compared Hermes: its syntax checks of Python and TOML are Hermes' own linters.
      await fx.gateway({ env: { HERMES_AGENT_PYTHON: hermes().python } });
    },
    async hermes(list) {
      const input = { cases: list.map((c) => ({ id: c.id, args: argsIn(c, dirOf('hermes', c), fx.ws), steps: stepsIn(c, dirOf('hermes', c), fx.ws), schema: c.schema === true })) };
      const answers = await fx.driver(driver, input, { TERMINAL_CWD: fx.ws }, 300_000);
      return new Map(list.map((c) => [c.id, answerOf('hermes', c, answers.get(c.id))]));
    },
    gateway: {
      // Each call a request of its own, without a session: the sessionless owner (a credential's reads carry over).
      mcp: (list) =>
        oneByOne(list, async (c) => {
          const dir = dirOf('mcp', c);
          if (c.schema) {
            const described = (await call(fx.gw.client, 'tool_describe', { names: [tool] })).data as { tools: Record<string, { parameters: unknown }> };
            return answerOf('mcp', c, schemaSummary(described.tools[tool]?.parameters));
          }
          for (const s of stepsIn(c, dir, fx.ws)) {
            if ('touch' in s) touch(String(argsIn(c, dir, fx.ws).path));
            else await fx.gw.call(s.tool, s.args!);
          }
          return answerOf('mcp', c, await fx.gw.call(tool, argsIn(c, dir, fx.ws)));
        }),
      // The cases with steps once more in sessions (session_open), the task's and, for `task: other`, another one's: Hermes' task exactly.
      mcp_session: (list) =>
        oneByOne(
          list.filter((c) => c.steps?.length),
          async (c) => {
            const dir = dirOf('mcp_session', c);
            const client = fx.gw.client;
            const token = (await viaBridge(client, 'session_open')).data.session_token as string;
            const other = (await viaBridge(client, 'session_open')).data.session_token as string;
            for (const s of stepsIn(c, dir, fx.ws)) {
              if ('touch' in s) touch(String(argsIn(c, dir, fx.ws).path));
              else await viaBridge(client, s.tool, s.args!, s.task === 'other' ? other : token);
            }
            const answer = (await viaBridge(client, tool, argsIn(c, dir, fx.ws), token)).data;
            for (const t of [token, other]) await viaBridge(client, 'session_close', {}, t).catch(() => undefined);
            return answerOf('mcp_session', c, answer);
          },
        ),
      async hermes_tools(list): Promise<Answers> {
        // One execute_code script makes at most 50 tool calls: the cases (and their steps) go in batches.
        // A script is one owner: cases whose steps touch a file or act as another task are left to the other ways.
        const out: Answers = new Map();
        const eligible = list.filter((c) => !c.schema && !(c.steps ?? []).some((s) => 'touch' in s || s.task === 'other'));
        let batch: EditCase[] = [];
        const run = async () => {
          const calls: Array<[string, Record<string, unknown>]> = [];
          const at: number[] = [];
          for (const c of batch) {
            for (const s of stepsIn(c, dirOf('hermes_tools', c), fx.ws)) if (!('touch' in s)) calls.push([s.tool, s.args!]);
            at.push(calls.length);
            calls.push([tool, argsIn(c, dirOf('hermes_tools', c), fx.ws)]);
          }
          const results = await fx.gw.hermesTools(calls);
          batch.forEach((c, j) => out.set(c.id, answerOf('hermes_tools', c, results[at[j]!])));
          batch = [];
        };
        let calls = 0;
        for (const c of eligible) {
          const n = 1 + (c.steps?.length ?? 0);
          if (calls + n > HERMES_TOOLS_BATCH) {
            await run();
            calls = 0;
          }
          batch.push(c);
          calls += n;
        }
        if (batch.length > 0) await run();
        return out;
      },
    },
  });
}
