import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../shared/package-root.js';
import { fidelityTable, writeMutationScore } from './fidelity-report.js';
import { ensureHermesVenv, ensureOracleVenv, HONCHO_ORACLE, needsHonchoOracle, parsePin, type HermesPin } from './hermes-venv.js';
import {
  applyMutation,
  fidelitySurfaces,
  judgeRun,
  loadMutations,
  mutationProblem,
  MUTATIONS_FILE,
  parseShare,
  readDump,
  shareOf,
  stageMutantTree,
  survivorReport,
  surfaceTestFile,
  type FailedTest,
  type MutantOutcome,
  type Mutation,
} from './mutation-corpus.js';

// The fidelity suite tested by mutation: each bug of tests/fidelity/mutations.yaml is made, alone,
// in a copy of the built tree (mutation-corpus.ts stageMutantTree; the checkout is never changed),
// and its surface's fidelity test file runs there against the Hermes pin; the mutation counts as
// caught only when that run fails with a fidelity verdict (mutation-corpus.ts judgeRun).
//
//   node dist/scripts/mutation-test.js                 the whole corpus (npm run test:mutation)
//   node dist/scripts/mutation-test.js --only a,b      those mutations
//   node dist/scripts/mutation-test.js --share 3/8     every 8th mutation from the 4th (day/8: by the day of the year)
//   --hermes=oldest|newest   run against that pin only (the mutations it shows); by default each
//                            mutation runs against the pin it names, the oldest when it names none
//   --no-baseline            skip the unmutated control run of each surface (CI, whose suite just
//                            ran unmutated); the kept Hermes answers are then not used either
//   --keep                   leave the copy in place (its path is printed) to look at the runs' logs
//
// Per surface and pin, the unmutated test file runs first: it must pass (else its mutations cannot
// be judged and count as broken). Hermes' side of a surface is the same in every mutant run: for a
// surface with several mutations the control run keeps Hermes' normalised answers
// (tests/fidelity/hermes-cache.ts), a second unmutated run checks the surface passes on them, and
// the mutant runs reuse them. Mutant runs go one at a time, each with exactly one change.
// Exit status: 0 when every selected mutation was caught, 1 otherwise, 2 for a bad corpus or usage.

/** A surface needs at least this many mutations in a run before its Hermes answers are kept (keeping costs one more unmutated run). */
const KEEP_HERMES_FROM = 3;
/** A mutant run may take this many times its surface's unmutated run (at least MIN_TIMEOUT_MS), else it is broken. */
const TIMEOUT_FACTOR = 3;
const MIN_TIMEOUT_MS = 180_000;
/** Without an unmutated run to measure (--no-baseline): the limit of one run. */
const DEFAULT_TIMEOUT_MS = 900_000;

interface Options {
  only?: string[];
  share?: { k: number; n: number };
  pin?: HermesPin;
  baseline: boolean;
  keep: boolean;
}

function parseArgs(args: readonly string[]): Options {
  const options: Options = { baseline: true, keep: false };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--only') options.only = value().split(',').filter((s) => s !== '');
    else if (flag === '--share') options.share = parseShare(value());
    else if (flag === '--hermes') options.pin = parsePin(value(), '--hermes');
    else if (flag === '--no-baseline') options.baseline = false;
    else if (flag === '--keep') options.keep = true;
    else throw new Error(`unknown argument ${args[i]!}`);
  }
  if (options.only && options.share) throw new Error('--only and --share exclude each other');
  return options;
}

interface RunResult {
  outcome: MutantOutcome;
  why: string;
  ms: number;
  log: string;
  /** Where the run's verdicts were dumped (HMCP_FIDELITY_DUMP), when the harness wrote them. */
  dump: string;
  failed: FailedTest[];
}

const root = packageRoot();
let options: Options;
let corpus: Mutation[];
try {
  options = parseArgs(process.argv.slice(2));
  corpus = loadMutations(join(root, MUTATIONS_FILE), fidelitySurfaces(root));
} catch (err) {
  process.stderr.write(`mutation-test: ${(err as Error).message}\n`);
  process.exit(2);
}

let selected: Mutation[];
let selection: string;
if (options.only) {
  const unknown = options.only.filter((id) => !corpus.some((m) => m.id === id));
  if (unknown.length > 0) {
    process.stderr.write(`mutation-test: no mutation ${unknown.join(', ')} in ${MUTATIONS_FILE}\n`);
    process.exit(2);
  }
  selected = corpus.filter((m) => options.only!.includes(m.id));
  selection = `only ${options.only.join(',')}`;
} else if (options.share) {
  selected = shareOf(corpus, options.share.k, options.share.n);
  selection = `share ${options.share.k}/${options.share.n}`;
} else {
  selected = corpus;
  selection = 'all';
}
const pinOf = (m: Mutation): HermesPin => options.pin ?? m.hermes ?? 'oldest';
if (options.pin) {
  selected = selected.filter((m) => m.hermes === undefined || m.hermes === options.pin);
  selection += ` (Hermes ${options.pin})`;
}
if (selected.length === 0) {
  process.stderr.write('mutation-test: no mutation selected\n');
  process.exit(2);
}

// The pinned Hermes venvs (and the Honcho oracle where a pin's package has none), before anything runs.
for (const pin of new Set(selected.map(pinOf))) {
  const venv = ensureHermesVenv(root, undefined, pin);
  const files = [...new Set(selected.filter((m) => pinOf(m) === pin).map((m) => relative(join(root, 'dist', 'tests'), join(root, surfaceTestFile(m.surface)))))];
  if (needsHonchoOracle(venv, files)) ensureOracleVenv(HONCHO_ORACLE, root);
}

const copy = mkdtempSync(join(tmpdir(), 'hmcp-mutation-'));
let current: ReturnType<typeof spawn> | undefined;
let stopped = false;
const cleanUp = () => {
  if (!options.keep) rmSync(copy, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopped = true;
    if (current?.pid) process.kill(-current.pid, 'SIGTERM');
  });
}

stageMutantTree(root, copy);
// Every selected mutation must apply, in the copy, before any runs: a corpus entry whose `find` is
// gone or ambiguous is an error of the corpus, not a surviving or a broken mutation.
const problems = selected.map((m) => mutationProblem(copy, m)).filter((p): p is string => p !== null);
if (problems.length > 0) {
  process.stderr.write(`mutation-test: ${problems.length} mutation(s) cannot be applied:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  cleanUp();
  process.exit(2);
}

const hermesKept = join(copy, '.cache', 'mutation-hermes-answers');
let runNumber = 0;

/** One run of `surface`'s fidelity test file in the copy, against `pin`. */
async function runSurface(surface: string, pin: HermesPin, keptAnswers: boolean, timeoutMs: number, known: readonly FailedTest[] = []): Promise<RunResult> {
  const n = ++runNumber;
  const events = join(copy, '.cache', `mutation-run-${n}.jsonl`);
  const log = join(copy, '.cache', `mutation-run-${n}.log`);
  const dump = join(copy, '.cache', `mutation-run-${n}-verdicts`);
  const url = (p: string) => pathToFileURL(join(copy, p)).href;
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-concurrency=1',
      `--import=${url('dist/tests/helpers/exit-watchdog.js')}`,
      `--test-reporter=${url('dist/scripts/mutation-reporter.js')}`,
      `--test-reporter-destination=${events}`,
      '--test-reporter=spec',
      `--test-reporter-destination=${log}`,
      join(copy, surfaceTestFile(surface)),
    ],
    { cwd: copy, stdio: 'ignore', detached: true, env: { ...process.env, HERMES_TEST_PIN: pin, HMCP_FIDELITY_HERMES_CACHE: keptAnswers ? hermesKept : '', HMCP_FIDELITY_DUMP: dump } },
  );
  current = child;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  }, timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  current = undefined;
  const failed = existsSync(events)
    ? readFileSync(events, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as FailedTest)
    : [];
  return { ...judgeRun(surface, { code, timedOut }, failed, known), ms: Date.now() - started, log, dump: join(dump, pin, `${surface}.json`), failed };
}

const tail = (file: string, lines = 15): string => (existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '(no log)');

interface Row {
  m: Mutation;
  pin: HermesPin;
  outcome: MutantOutcome;
  why: string;
  ms: number;
}
const rows: Row[] = [];
const groups = new Map<string, Mutation[]>();
for (const m of selected) {
  const key = `${pinOf(m)}\0${m.surface}`;
  groups.set(key, [...(groups.get(key) ?? []), m]);
}

for (const [key, group] of groups) {
  if (stopped) break;
  const [pin, surface] = key.split('\0') as [HermesPin, string];
  let keep = false;
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  let controlDump: string | undefined;
  /** The unmutated run's failures (fidelity verdicts only), which are not any mutation's. */
  let known: FailedTest[] = [];
  if (options.baseline) {
    keep = group.length >= KEEP_HERMES_FROM;
    const control = await runSurface(surface, pin, keep, DEFAULT_TIMEOUT_MS);
    process.stdout.write(`${surface} (${pin}) unmutated: ${control.outcome === 'survived' ? 'passes' : 'FAILS'} in ${(control.ms / 1000).toFixed(1)} s\n`);
    // Failing unmutated with fidelity verdicts, the surface can still judge its mutants: a mutant is
    // caught by a failure the unmutated run does not have. Broken unmutated, it cannot.
    if (control.outcome === 'caught') {
      known = control.failed;
      process.stdout.write(`  its failures, which no mutant is credited with:\n${known.map((f) => `    ${f.name}: ${f.message.split('\n').slice(0, 3).join(' ')}`).join('\n')}\n`);
    } else if (control.outcome !== 'survived') {
      process.stdout.write(`${tail(control.log)}\n`);
      for (const m of group) rows.push({ m, pin, outcome: 'broken', why: `the unmutated surface does not pass: ${control.why}`, ms: 0 });
      continue;
    }
    timeoutMs = Math.max(MIN_TIMEOUT_MS, TIMEOUT_FACTOR * control.ms);
    controlDump = control.dump;
    if (keep) {
      const replay = await runSurface(surface, pin, true, timeoutMs, known);
      process.stdout.write(`${surface} (${pin}) unmutated on kept Hermes answers: ${replay.outcome === 'survived' ? 'passes' : 'FAILS, so they are not used'} in ${(replay.ms / 1000).toFixed(1)} s\n`);
      keep = replay.outcome === 'survived';
    }
  }
  for (const m of group) {
    if (stopped) break;
    const restore = applyMutation(copy, m);
    let r: RunResult;
    try {
      r = await runSurface(surface, pin, keep, timeoutMs, known);
    } finally {
      restore();
    }
    if (stopped) break; // the run was ended by the signal: no verdict
    // A survivor: which cases' gateway answers it changed, and which divergences excused them.
    if (r.outcome === 'survived' && controlDump) r.why = survivorReport(readDump(controlDump), readDump(r.dump));
    process.stdout.write(`  ${m.id}: ${r.outcome} in ${(r.ms / 1000).toFixed(1)} s${r.outcome === 'caught' ? '' : ` (${r.why})`}\n`);
    if (r.outcome === 'broken') process.stdout.write(`${tail(r.log)}\n`);
    rows.push({ m, pin, outcome: r.outcome, why: r.why, ms: r.ms });
  }
}

// The table: every selected mutation, in corpus order.
const order = new Map(selected.map((m, i) => [m.id, i]));
rows.sort((a, b) => order.get(a.m.id)! - order.get(b.m.id)!);
const table = [['mutation', 'surface', 'hermes', 'outcome', 'seconds'], ...rows.map((r) => [r.m.id, r.m.surface, r.pin, r.outcome, (r.ms / 1000).toFixed(1)])];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
process.stdout.write(`\n${table.map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n`);
for (const r of rows.filter((x) => x.outcome !== 'caught')) process.stdout.write(`${r.outcome} ${r.m.id}: ${r.m.what}\n  ${r.why}\n`);
const caught = rows.filter((r) => r.outcome === 'caught').length;
const unrun = selected.length - rows.length;
process.stdout.write(`\nmutation score: ${caught}/${selected.length} caught${unrun > 0 ? ` (${unrun} not run: stopped)` : ''}\n`);
writeMutationScore({ caught, selected: selected.length, survived: rows.filter((r) => r.outcome === 'survived').map((r) => r.m.id), broken: rows.filter((r) => r.outcome === 'broken').map((r) => r.m.id), selection });
if (options.keep) process.stdout.write(`the mutant tree and its runs' logs: ${copy}\n`);
else process.stdout.write(`\n${fidelityTable()}`);
cleanUp();
process.exit(caught === selected.length ? 0 : 1);
