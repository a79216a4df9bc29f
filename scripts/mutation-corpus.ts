import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { HERMES_PINS, type HermesPin } from './hermes-venv.js';

// The fidelity suite tested by mutation (scripts/mutation-test.ts): the corpus of one-site bugs of
// the built gateway (tests/fidelity/mutations.yaml), a copy of the built tree each bug is made in
// (the checkout itself is never changed), and how a mutant run's outcome is judged. A mutation is
// caught only when the surface's fidelity test fails with a fidelity verdict: a case whose answers
// differ, or a problem of the divergence list (an entry no case shows, a listed case that does not
// show it, a predicate that does not hold). A run that fails any other way (a hook that threw, a
// timeout, a test file that did not load) says nothing about the suite: the mutation is "broken".

/** One bug of the corpus: `find` (exactly once in the built file) becomes `replace`. */
export interface Mutation {
  id: string;
  /** The fidelity surface whose test file catches it (tests/fidelity/<surface, `_` as `-`>.test.ts). */
  surface: string;
  /** The source file: a .ts file is changed in its compiled dist/…js, any other file (Python, policy data) as it is. */
  file: string;
  find: string;
  replace: string;
  /** The bug as a user would see it. */
  what: string;
  /** Only this Hermes pin shows it (both when absent). */
  hermes?: HermesPin;
}

export const MUTATIONS_FILE = join('tests', 'fidelity', 'mutations.yaml');

/** The surfaces that have a fidelity test file, from the built tree `root` (dist/tests/fidelity/*.test.js). */
export function fidelitySurfaces(root: string): string[] {
  return readdirSync(join(root, 'dist', 'tests', 'fidelity'))
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => f.slice(0, -'.test.js'.length).replaceAll('-', '_'))
    .sort();
}

/** The compiled fidelity test file of `surface`, relative to the package root. */
export function surfaceTestFile(surface: string): string {
  return join('dist', 'tests', 'fidelity', `${surface.replaceAll('_', '-')}.test.js`);
}

/** Where a mutation's `file` is changed, relative to the package root: a .ts file's compiled JS, any other file itself. */
export function builtPath(file: string): string {
  return file.endsWith('.ts') ? join('dist', `${file.slice(0, -'.ts'.length)}.js`) : file;
}

/** The corpus at `path`, checked: every field present, ids unique, surfaces known, `find` different from `replace`. */
export function loadMutations(path: string, surfaces: readonly string[]): Mutation[] {
  const list = parse(readFileSync(path, 'utf8')) as unknown;
  if (!Array.isArray(list)) throw new Error(`${path} is not a list`);
  const seen = new Set<string>();
  return list.map((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${path}: entry ${i + 1} is not a mapping`);
    const m = raw as Record<string, unknown>;
    const where = `${path}: ${typeof m.id === 'string' ? m.id : `entry ${i + 1}`}`;
    for (const key of ['id', 'surface', 'file', 'find', 'replace', 'what'] as const) {
      if (typeof m[key] !== 'string' || (key !== 'replace' && m[key] === '')) throw new Error(`${where}: \`${key}\` must be a${key === 'replace' ? '' : ' non-empty'} string`);
    }
    const unknownKeys = Object.keys(m).filter((k) => !['id', 'surface', 'file', 'find', 'replace', 'what', 'hermes'].includes(k));
    if (unknownKeys.length > 0) throw new Error(`${where}: unknown field(s) ${unknownKeys.join(', ')}`);
    const id = m.id as string;
    if (seen.has(id)) throw new Error(`${where}: the id is used twice`);
    seen.add(id);
    if (!surfaces.includes(m.surface as string)) throw new Error(`${where}: surface ${String(m.surface)} has no fidelity test file (known: ${surfaces.join(', ')})`);
    if (m.find === m.replace) throw new Error(`${where}: \`replace\` equals \`find\``);
    if (m.hermes !== undefined && !(HERMES_PINS as readonly unknown[]).includes(m.hermes)) throw new Error(`${where}: hermes must be one of ${HERMES_PINS.join(', ')}`);
    return { id, surface: m.surface as string, file: m.file as string, find: m.find as string, replace: m.replace as string, what: m.what as string, ...(m.hermes !== undefined ? { hermes: m.hermes as HermesPin } : {}) };
  });
}

/** How many times `find` occurs in `text` (overlapping occurrences counted). */
export function occurrences(text: string, find: string): number {
  let n = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) n++;
  return n;
}

/** Why `m` cannot be applied in the tree at `root`, or null when its `find` occurs exactly once in its built file. */
export function mutationProblem(root: string, m: Mutation): string | null {
  const target = join(root, builtPath(m.file));
  if (!existsSync(target)) return `${m.id}: ${builtPath(m.file)} does not exist (is the tree built?)`;
  const n = occurrences(readFileSync(target, 'utf8'), m.find);
  return n === 1 ? null : `${m.id}: \`find\` occurs ${n} times in ${builtPath(m.file)}, not exactly once`;
}

/**
 * Makes the one change of `m` in the tree at `root` (a copy, never the checkout); returns how to
 * undo it. Throws when `find` does not occur exactly once.
 */
export function applyMutation(root: string, m: Mutation): () => void {
  const problem = mutationProblem(root, m);
  if (problem) throw new Error(problem);
  const target = join(root, builtPath(m.file));
  const original = readFileSync(target, 'utf8');
  const at = original.indexOf(m.find);
  writeFileSync(target, original.slice(0, at) + m.replace + original.slice(at + m.find.length));
  return () => writeFileSync(target, original);
}

/** What is never copied into a mutant tree: linked to the checkout's (node_modules, the native build) or made anew (.cache). */
const NOT_COPIED = new Set(['.git', 'node_modules', 'build', '.cache']);
/** Entries of the checkout's .cache a mutant tree links to (the pinned venvs, the Hermes home templates); its own fidelity report stays its own. */
const CACHE_LINKED = (name: string) => name.startsWith('hermes-venv') || name === 'hermes-home-template';

/**
 * A copy of the built checkout at `root` in the empty directory `dest`, for mutants: every file
 * (dist included) copied, node_modules and the native build linked, and a .cache of its own whose
 * venvs and Hermes home templates are the checkout's (linked), so a mutant's test file finds the
 * same package root layout (shared/package-root.ts) and writes its tallies into the copy.
 */
export function stageMutantTree(root: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (!NOT_COPIED.has(entry)) cpSync(join(root, entry), join(dest, entry), { recursive: true, verbatimSymlinks: true });
  }
  for (const linked of ['node_modules', 'build']) if (existsSync(join(root, linked))) symlinkSync(join(root, linked), join(dest, linked));
  mkdirSync(join(root, '.cache', 'hermes-home-template'), { recursive: true });
  mkdirSync(join(dest, '.cache'));
  for (const entry of readdirSync(join(root, '.cache'))) if (CACHE_LINKED(entry)) symlinkSync(join(root, '.cache', entry), join(dest, '.cache', entry));
}

/** A failed test as the mutant run's reporter (mutation-reporter.ts) records it. */
export interface FailedTest {
  name: string;
  /** node:test's failureType: testCodeFailure (the test threw), hookFailed, testTimeoutFailure, ... */
  failureType?: string;
  /** The code of what the test threw (ERR_ASSERTION for a failed assertion). */
  code?: string;
  message: string;
}

export type MutantOutcome = 'caught' | 'survived' | 'broken';

/** Assertion messages of compareSurface that say an answer is missing: the run broke, the suite did not judge. */
const NO_ANSWER = [/^Hermes gave no answer for /, /^no way of reaching the gateway answered /];

/**
 * A mutant run's outcome: survived when the surface's test file passed (or failed only as it does
 * unmutated: `known`, the unmutated run's failures, are not the mutation's); caught when it failed
 * and every new failure is a fidelity verdict (a failed assertion of one of the surface's own tests:
 * a case that differs, a problem of its divergence list); broken otherwise (a timeout, a hook or a
 * file that threw, an answer missing, the test file not loading, a failure without a test).
 */
export function judgeRun(
  surface: string,
  exit: { code: number | null; timedOut: boolean },
  failed: readonly FailedTest[],
  known: readonly FailedTest[] = [],
): { outcome: MutantOutcome; why: string } {
  if (exit.timedOut) return { outcome: 'broken', why: 'timed out' };
  const fresh = failed.filter((f) => !known.some((k) => k.name === f.name && k.message === f.message && k.failureType === f.failureType));
  if (exit.code === 0 && failed.length === 0) return { outcome: 'survived', why: 'the fidelity test passed' };
  if (failed.length === 0) return { outcome: 'broken', why: `the test run exited ${String(exit.code)} without a failed test` };
  if (fresh.length === 0) return { outcome: 'survived', why: 'the fidelity test failed only as it does unmutated' };
  const notVerdict = fresh.find(
    (f) => !f.name.startsWith(`${surface}: `) || f.failureType !== 'testCodeFailure' || f.code !== 'ERR_ASSERTION' || NO_ANSWER.some((re) => re.test(f.message)),
  );
  if (notVerdict) return { outcome: 'broken', why: `${notVerdict.name}: ${notVerdict.failureType ?? 'failure'} ${firstLine(notVerdict.message)}` };
  return { outcome: 'caught', why: fresh.map((f) => `${f.name.slice(surface.length + 2)}: ${firstLine(f.message)}`).join(' | ') };
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** One verdict of a run's dump (HMCP_FIDELITY_DUMP: <dir>/<pin>/<surface>.json, written by the harness). */
export interface DumpedVerdict {
  case: string;
  via: string;
  verdict: string;
  fields: string[];
  divergences: string[];
  gateway: unknown;
}

export function readDump(file: string): DumpedVerdict[] | undefined {
  if (!existsSync(file)) return undefined;
  const data = JSON.parse(readFileSync(file, 'utf8')) as DumpedVerdict[] | { verdicts?: DumpedVerdict[] };
  return Array.isArray(data) ? data : data.verdicts;
}

/**
 * What a surviving mutant changed, judged against the unmutated run: the cases whose gateway answer
 * changed where it differs from Hermes' (a value equal to Hermes' in both runs, such as a time both
 * sides took from the same run, is not the mutation's), and the divergences that excused them.
 */
export function survivorReport(control: DumpedVerdict[] | undefined, mutant: DumpedVerdict[] | undefined): string {
  if (!control || !mutant) return 'the fidelity test passed (the harness wrote no verdicts to tell which cases changed)';
  const before = new Map(control.map((v) => [`${v.case}\0${v.via}`, v]));
  const related = (field: string, differing: readonly string[]) => differing.some((d) => d === '.' || field === d || field.startsWith(`${d}.`) || d.startsWith(`${field}.`));
  const changed = mutant.flatMap((v) => {
    const b = before.get(`${v.case}\0${v.via}`);
    const fields = changedFields(b?.gateway, v.gateway).filter((f) => related(f, [...v.fields, ...(b?.fields ?? [])]));
    return fields.length > 0 ? [{ v, fields }] : [];
  });
  if (changed.length === 0) return "no case's gateway answer changed: no case exercises it";
  const excusedBy = [...new Set(changed.flatMap(({ v }) => v.divergences))];
  const shown = changed
    .slice(0, 4)
    .map(({ v, fields }) => `${v.case} (${v.via}) [${fields.join(', ')}]`)
    .join(', ');
  return `${changed.length} answer(s) changed, e.g. ${shown}; excused by ${excusedBy.length > 0 ? excusedBy.join(', ') : 'no divergence (equal to Hermes)'}`;
}

/** The dotted paths at which two answers differ (as the fidelity harness compares them). */
export function changedFields(a: unknown, b: unknown, path = ''): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || Array.isArray(a) !== Array.isArray(b)) return [path || '.'];
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort().flatMap((k) => changedFields(ra[k], rb[k], path ? `${path}.${k}` : k));
}

/**
 * About how long one run of each surface's fidelity test file takes, in seconds (measured unmutated
 * against the oldest Hermes on two cores, Hermes asked). Only the shares' balance depends on them; a
 * surface not listed counts DEFAULT_SURFACE_SECONDS.
 */
export const SURFACE_SECONDS: Readonly<Record<string, number>> = {
  read_file: 9,
  write_file: 14,
  patch: 15,
  search_files: 10,
  terminal: 29,
  process: 118,
  command_guards: 6,
  redaction: 8,
  session_search: 6,
  cronjob: 73,
  skills: 8,
  startup_context: 12,
  hermes_tools: 6,
  honcho_identity: 12,
  honcho_tools: 44,
  browser: 57,
  terminal_schema: 6,
  file_state: 6,
};
const DEFAULT_SURFACE_SECONDS = 30;

/**
 * The share `k` of `n` of the corpus (0 ≤ k < n): the corpus dealt into n shares of about equal
 * running time (longest first, each to the share with the least time so far; ties by corpus order
 * and share number), so every mutation is in exactly one share and a daily share's time stays near
 * the corpus' nth part whatever surfaces it draws. The shares only change when the corpus does.
 */
export function shareOf(list: readonly Mutation[], k: number, n: number, seconds: Readonly<Record<string, number>> = SURFACE_SECONDS): Mutation[] {
  const cost = (m: Mutation) => seconds[m.surface] ?? DEFAULT_SURFACE_SECONDS;
  const totals = Array.from({ length: n }, () => 0);
  const share = new Map<Mutation, number>();
  const byCost = list.map((m, i) => ({ m, i })).sort((a, b) => cost(b.m) - cost(a.m) || a.i - b.i);
  for (const { m } of byCost) {
    const least = totals.indexOf(Math.min(...totals));
    share.set(m, least);
    totals[least]! += cost(m);
  }
  return list.filter((m) => share.get(m) === k);
}

/** `--share K/N`: K a number below N, or `day` for the day of the year (UTC) modulo N, so a daily run rotates through the corpus. */
export function parseShare(text: string, now: Date = new Date()): { k: number; n: number } {
  const m = /^(day|\d+)\/(\d+)$/.exec(text);
  const n = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(n) || n < 1) throw new Error(`--share must be K/N (0 ≤ K < N) or day/N, got ${JSON.stringify(text)}`);
  const k = m[1] === 'day' ? dayOfYear(now) % n : Number(m[1]);
  if (k >= n) throw new Error(`--share ${text}: K must be below N`);
  return { k, n };
}

function dayOfYear(d: Date): number {
  return Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000);
}
