import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Check } from '../../scripts/divergence-predicates.js';
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

const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** How a refusal's code follows from its message (and, where the message does not tell, the case). */
type CodeRule = readonly [RegExp, string | ((c: EditCase, target: string, message: string) => string)];

/**
 * A V4A validation failure's code from its bullets (one per refused operation), as the gateway's
 * v4a.ts classifies them: all not found, PATCH_NO_MATCH; all ambiguous, PATCH_AMBIGUOUS; else PATCH_INVALID.
 */
function v4aValidationCode(message: string): string {
  const bullets = message.split('\n').filter((l) => l.startsWith('  • '));
  const kind = (b: string) => (/hint '.*' is ambiguous|not found — Found \d+ matches/.test(b) ? 'ambiguous' : /hint '.*' not found$|not found — Could not find a match/.test(b) ? 'no_match' : 'other');
  const kinds = new Set(bullets.map(kind));
  return kinds.size === 1 && kinds.has('no_match') ? 'PATCH_NO_MATCH' : kinds.size === 1 && kinds.has('ambiguous') ? 'PATCH_AMBIGUOUS' : 'PATCH_INVALID';
}

/** The stable code each refusal of the surface carries, by its message (Hermes' words, or the gateway's own). */
const CODE_OF_MESSAGE: Readonly<Record<string, readonly CodeRule[]>> = {
  write_file: [
    [/^Refusing to overwrite existing (?:PDF|binary file) /, 'FILE_BLOCKED'],
    [/^Refusing to overwrite /, 'FILE_STALE_WRITE'],
    [/^Refusing to write plain text to binary /, 'FILE_BLOCKED'],
    [/^BLOCKED: write to protected /, 'FILE_BLOCKED'],
    [/^Refusing to write '.*?': candidate content /s, 'INVALID_ARGUMENTS'],
    [/^Refusing to write internal read_file display text /, 'INVALID_ARGUMENTS'],
    [/^Cannot write '.*': it exists and is not a regular file\.$/s, 'FILE_NOT_REGULAR'],
    [/^write_file: refusing to write '.*?': the new text contains «/s, 'CONTENT_HAS_REDACTION_MARKER'],
  ],
  patch: [
    [/^patch: refusing to write '.*?': the new text contains «/s, 'CONTENT_HAS_REDACTION_MARKER'],
    // Hermes says the same for a missing file and a directory; the case tells which it is.
    [/^Failed to read file: /, (c, target) => (isDirSpec(c.files?.[target]) ? 'FILE_NOT_REGULAR' : 'FILE_NOT_FOUND')],
    [/^Failed to write changes: Refusing to write '.*?': candidate content /s, 'INVALID_ARGUMENTS'],
    [/^(?:old_string |No edit was applied because old_string and new_string are identical|path required$|patch content required$|invalid arguments for patch: )/, 'INVALID_ARGUMENTS'],
    [/^Found \d+ (?:approximate )?matches /, 'PATCH_AMBIGUOUS'],
    [/^Could not find a match for old_string /, 'PATCH_NO_MATCH'],
    [/^Patch validation failed \(no files were modified\):\n/, (_c, _target, message) => v4aValidationCode(message)],
    [/^(?:Escape-drift detected: |Failed to parse patch: |V4A patch header contains '\.\.' traversal: )/, 'PATCH_INVALID'],
  ],
};

/** What a unified diff puts after a line the file does not end with a newline after. */
const NO_NEWLINE_MARK = '\n\\ No newline at end of file\n';

const isDirSpec = (spec: FileSpec | undefined): boolean => typeof spec === 'object' && 'dir' in spec;

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
  const byId = new Map(cases.map((c) => [c.id, c]));
  /** The case's files as they were before the call (a copy no way edits), read back as the answers' are. */
  const filesBefore = (c: EditCase): unknown => record(answerOf('before', c, undefined)).files;
  /** The path the case's call names, relative to its directory. */
  const targetOf = (c: EditCase): string => relative(dirOf('before', c), String(argsIn(c, dirOf('before', c), fx.ws).path));

  // The named checks this surface's divergences pin fields with (divergences/<surface>.yaml).
  const checks: Record<string, Check> = {
    // The code its message carries (CODE_OF_MESSAGE): a refusal whose code does not fit its words fails.
    'code-of-message': ({ caseId, gateway, gatewayAnswer }) => {
      const c = byId.get(caseId);
      const message = record(record(gatewayAnswer).result).error;
      if (c === undefined || typeof message !== 'string') return false;
      const rule = (CODE_OF_MESSAGE[surface] ?? []).find(([re]) => re.test(message));
      return rule !== undefined && gateway === (typeof rule[1] === 'string' ? rule[1] : rule[1](c, targetOf(c), message));
    },
    // Nothing was written: the case's files are as they were before the call, byte for byte.
    'files-unchanged': ({ caseId, gateway }) => {
      const c = byId.get(caseId);
      return c !== undefined && isDeepStrictEqual(gateway, filesBefore(c));
    },
    // The call's content was written to its path, byte for byte, and nothing else changed.
    'content-written': ({ caseId, gateway }) => {
      const c = byId.get(caseId);
      return c !== undefined && typeof c.args.content === 'string' && isDeepStrictEqual(gateway, { ...record(filesBefore(c)), [targetOf(c)]: c.args.content });
    },
    // Hermes' difflib diff with each line that lacks a newline ended and marked ("\\ No newline at
    // end of file"): taking the marks out gives Hermes' text back, each mark stands where one of
    // Hermes' lines ran into the next (or at the end), and there is one for each side of the
    // case's one file (before, after) that does not end in a newline.
    'no-newline-marked': ({ caseId, gateway, hermes: h, gatewayAnswer }) => {
      const c = byId.get(caseId);
      if (c === undefined || typeof gateway !== 'string' || typeof h !== 'string' || !gateway.endsWith('\n')) return false;
      const parts = gateway.split(NO_NEWLINE_MARK);
      let at = 0;
      for (const part of parts.slice(0, -1)) {
        at += part.length;
        if (at < h.length && !'+- '.includes(h[at]!)) return false;
      }
      const lacks = (files: unknown) => Object.values(record(files)).filter((t) => typeof t === 'string' && t !== '' && !t.endsWith('\n')).length;
      return parts.join('') === h && parts.length - 1 === lacks(filesBefore(c)) + lacks(record(gatewayAnswer).files);
    },
    // true exactly when the path's parent directory did not exist before the call (the case's files hold none there).
    'dirs-created': ({ caseId, gateway }) => {
      const c = byId.get(caseId);
      if (c === undefined) return false;
      const parent = dirname(targetOf(c));
      const existed = parent === '.' || Object.entries(c.files ?? {}).some(([k, spec]) => (k === parent && isDirSpec(spec)) || k.startsWith(`${parent}/`));
      return gateway === !existed;
    },
  };

  compareSurface<EditCase>({
    surface,
    cases,
    fixture: fx,
    async setUp() {
      // `before`: a copy no way edits, what the case's files were before the call.
      for (const way of ['before', 'hermes', 'mcp', 'mcp_session', 'hermes_tools']) for (const c of cases) writeFiles(dirOf(way, c), c.files);
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
    checks,
  });
}
