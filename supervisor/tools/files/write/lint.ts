import { createHash } from 'node:crypto';
import { accessSync, constants as fsConstants } from 'node:fs';
import { delimiter, extname, join } from 'node:path';
import { GatewayError } from '../../../../shared/errors.js';
import { defaultLimits } from '../../../../shared/limits.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';

// write_file's and patch's syntax checks of Python and TOML, as the Hermes the gateway fronts runs
// them: Hermes' own in-process linters (`LINTERS_INPROC`: tools/file_operations_lint.py from 0.22,
// tools/file_operations.py before) called in a Hermes call worker (workers/hermes-call/lint.py),
// so the verdict and its words are that Hermes' own. Where no Hermes Agent is installed the same
// module runs in the system python3 and checks with the standard library's parsers (`ast.parse`,
// `tomllib.loads`) in the form Hermes' linters answer. JSON and YAML go to Hermes' linters too where
// a Hermes is found (its parsers' own words), else the gateway parses them (write/index.ts). Each check is bounded: texts over
// `writeLintMaxBytes` are not checked, and a check past `writeLintTimeoutSeconds` is stopped; an
// unchecked text gets a `skipped` lint that says why, and is never refused.

/** A `lint` field, as upstream's LintResult.to_dict gives it. */
export type Lint = { status: 'skipped'; message: string } | { status: 'ok' | 'error'; output: string; message?: string };

/** The extensions always checked in Python (Hermes' LINTERS_INPROC entries the gateway does not parse itself). */
export const PYTHON_CHECKED = new Set(['.py', '.toml']);
/** The extensions checked by Hermes' own linters where a Hermes is found, else parsed by the gateway (write/index.ts). */
const HERMES_WHEN_FOUND = new Set(['.json', '.yaml', '.yml']);
/** Hermes' fail-closed extensions (`_FAIL_CLOSED_INPROC_EXTS`): content that does not parse is not written. */
const FAIL_CLOSED = new Set(['.json', '.yaml', '.yml', '.toml']);

/** Whether files of `ext` are checked in Python here (Hermes' linters, or the system python3's for PYTHON_CHECKED). */
export function checkedInPython(deps: LintDeps, ext: string): boolean {
  return PYTHON_CHECKED.has(ext) || (HERMES_WHEN_FOUND.has(ext) && deps.hermes?.available === true);
}

export interface LintDeps {
  /** Hermes' own functions (its linters); the system python3 where none is installed. */
  hermes?: HermesCaller;
  /** PATH at start-up, where the system python3 is looked for. */
  searchPath?: string;
  /** How long one check may take (`writeLintTimeoutSeconds`). */
  writeLintTimeoutSeconds?: number;
  /** The largest text checked (`writeLintMaxBytes`). */
  writeLintMaxBytes?: number;
  signal?: AbortSignal;
}


/** One linter verdict as Hermes' in-process linters give it: `[ok, error]` (error `__SKIP__`: dependency missing). */
type Verdict = [boolean, string];

/**
 * The last verdicts each checker (a HermesCaller: its Hermes, or the system python3 it falls back
 * to) gave, by extension and text digest: a write of JSON, YAML or TOML
 * asks for the fail-closed gate's verdict and then for the written text's lint, the same text, so
 * the second answer is the first (one worker per write, not two). A handful is enough for that.
 */
const recentVerdicts = new WeakMap<object, Map<string, Verdict>>();
const RECENT_VERDICTS = 8;
const verdictKey = (ext: string, text: string): string => `${ext}\0${createHash('sha256').update(text).digest('hex')}`;

function systemPython(searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '/usr/bin:/bin').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'python3');
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Hermes' linter verdicts for `texts` (files of extension `ext`), or a skipped lint saying why there
 * are none. `texts` may hold null (no such text): its verdict is null.
 */
export async function pythonVerdicts(deps: LintDeps, ext: string, texts: ReadonlyArray<string | null>): Promise<Array<Verdict | null> | Lint> {
  const max = deps.writeLintMaxBytes ?? defaultLimits().writeLintMaxBytes;
  const present = texts.filter((t): t is string => t !== null);
  if (present.some((t) => Buffer.byteLength(t, 'utf8') > max)) {
    return { status: 'skipped', message: `Syntax check of ${ext} skipped: the file is over the gateway's ${max}-byte limit for syntax checks (writeLintMaxBytes)` };
  }
  const hermes = deps.hermes;
  if (!hermes) return { status: 'skipped', message: `Syntax checks of ${ext} files are not available here` };
  const interpreter = hermes.available ? undefined : systemPython(deps.searchPath);
  if (!hermes.available && interpreter === undefined) return { status: 'skipped', message: `python3 not available` };
  let recent = recentVerdicts.get(hermes);
  if (!recent) recentVerdicts.set(hermes, (recent = new Map()));
  const keys = texts.map((t) => (t === null ? null : verdictKey(ext, t)));
  const known = keys.map((k) => (k === null ? null : (recent.get(k) ?? null)));
  if (keys.every((k, i) => k === null || known[i] !== null)) return known;
  let value: unknown;
  try {
    value = await hermes.call('lint', 'check', { ext, texts: present, without_hermes: interpreter !== undefined }, {
      timeoutMs: (deps.writeLintTimeoutSeconds ?? defaultLimits().writeLintTimeoutSeconds) * 1000,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(interpreter !== undefined ? { interpreter } : {}),
    });
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    if (e.code === 'CANCELLED') throw e;
    return { status: 'skipped', message: `Syntax check of ${ext} not run: ${e.message}` };
  }
  const results = (value as { results?: unknown }).results;
  if (results === null) return { status: 'skipped', message: `No linter for ${ext} files` };
  if (!Array.isArray(results) || results.length !== present.length) return { status: 'skipped', message: `Syntax check of ${ext} not run: an unexpected answer` };
  let i = 0;
  const verdicts = texts.map((t) => (t === null ? null : (results[i++] as Verdict)));
  keys.forEach((k, j) => {
    if (k === null) return;
    recent.delete(k);
    recent.set(k, verdicts[j]!);
    if (recent.size > RECENT_VERDICTS) recent.delete(recent.keys().next().value!);
  });
  return verdicts;
}

/** A verdict as Hermes' `_check_lint` reports it (LintResult.to_dict). */
export function lintOfVerdict(ext: string, verdict: Verdict): Lint {
  const [ok, error] = verdict;
  if (error === '__SKIP__') return { status: 'skipped', message: `No linter available for ${ext} (missing dependency)` };
  return ok ? { status: 'ok', output: '' } : { status: 'error', output: error };
}

/**
 * Hermes' `_check_lint_delta` refinement: `post` as it is unless both it and `pre` (null: no old
 * text) failed; then only the errors this edit introduced, or a note that they were all there before.
 */
export function refineDelta(post: Lint, pre: () => Lint | null): Lint {
  if (post.status !== 'error') return post;
  const old = pre();
  if (old === null || old.status !== 'error' || !old.output) return post;
  const preLines = new Set(old.output.split('\n').map((l) => l.trim()).filter((l) => l));
  const fresh = post.output.split('\n').filter((l) => l.trim() && !preLines.has(l.trim()));
  if (fresh.length === 0) {
    return { status: 'error', output: post.output, message: "Pre-existing lint errors — this edit didn't introduce new ones but the file is still broken." };
  }
  return { status: 'error', output: `New lint errors introduced by this edit (pre-existing errors filtered out):\n${fresh.join('\n')}` };
}

/** Hermes' `_check_lint_delta` of a file checked in Python (checkedInPython): `after` refined against `before`. */
export async function pythonLintDelta(deps: LintDeps, path: string, before: string | null, after: string): Promise<Lint> {
  const ext = extname(path).toLowerCase();
  // A text the gate has just passed lints ok: the old text is then not needed (refineDelta only reads it after an error).
  const gated = deps.hermes && recentVerdicts.get(deps.hermes)?.get(verdictKey(ext, after));
  if (gated?.[0] === true) return lintOfVerdict(ext, gated);
  const verdicts = await pythonVerdicts(deps, ext, [after, before]);
  if (!Array.isArray(verdicts)) return verdicts;
  return refineDelta(lintOfVerdict(ext, verdicts[0]!), () => (verdicts[1] ? lintOfVerdict(ext, verdicts[1]) : null));
}

/** Hermes' `_check_lint` of a Python-checked file as it is now (`content` null: it could not be read). */
export async function pythonLint(deps: LintDeps, path: string, content: string | null): Promise<Lint> {
  const ext = extname(path).toLowerCase();
  if (content === null) return { status: 'skipped', message: `Failed to read ${path} for lint` };
  const verdicts = await pythonVerdicts(deps, ext, [content]);
  return Array.isArray(verdicts) ? lintOfVerdict(ext, verdicts[0]!) : verdicts;
}

/**
 * Hermes' fail-closed gate (`_FAIL_CLOSED_INPROC_EXTS`) for a file checked in Python: the refusal
 * message when `content` does not parse, else null (also when it could not be checked: an
 * unchecked write is not refused).
 */
export async function pythonGateRefusal(deps: LintDeps, path: string, content: string): Promise<string | null> {
  const ext = extname(path).toLowerCase();
  if (!FAIL_CLOSED.has(ext) || !checkedInPython(deps, ext)) return null;
  const verdicts = await pythonVerdicts(deps, ext, [content]);
  if (!Array.isArray(verdicts)) return null;
  const [ok, error] = verdicts[0]!;
  if (ok || error === '__SKIP__') return null;
  return `Refusing to write '${path}': candidate content fails ${ext} syntax validation (${error}). The file was NOT created or modified. Fix the content and retry.`;
}
