import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
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
      for (const way of ['hermes', 'mcp', 'hermes_tools']) for (const c of cases) writeFiles(dirOf(way, c), c.files);
      await fx.gateway();
    },
    async hermes(list) {
      const input = { cases: list.map((c) => ({ id: c.id, args: argsIn(c, dirOf('hermes', c), fx.ws) })) };
      const answers = await fx.driver(driver, input, { TERMINAL_CWD: fx.ws }, 300_000);
      return new Map(list.map((c) => [c.id, answerOf('hermes', c, answers.get(c.id))]));
    },
    gateway: {
      mcp: (list) => oneByOne(list, async (c) => answerOf('mcp', c, await fx.gw.call(tool, argsIn(c, dirOf('mcp', c), fx.ws)))),
      async hermes_tools(list): Promise<Answers> {
        // One execute_code script makes at most 50 tool calls: the cases go in batches.
        const out: Answers = new Map();
        for (let i = 0; i < list.length; i += HERMES_TOOLS_BATCH) {
          const batch = list.slice(i, i + HERMES_TOOLS_BATCH);
          const results = await fx.gw.hermesTools(batch.map((c) => [tool, argsIn(c, dirOf('hermes_tools', c), fx.ws)]));
          batch.forEach((c, j) => out.set(c.id, answerOf('hermes_tools', c, results[j])));
        }
        return out;
      },
    },
  });
}
