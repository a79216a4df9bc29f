import { existsSync, readdirSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { HERMES_PINS, parsePin, type HermesPin } from './hermes-venv.js';

/**
 * The compiled test files under `testsDir` (absolute paths, sorted) that `args` select: a path
 * prefix under tests/ selects the files it starts, `!prefix` leaves them out, no prefix at all
 * selects every file. `tests/` and `dist/tests/` in front of a prefix are accepted and dropped.
 */
export function testFiles(testsDir: string, args: readonly string[]): string[] {
  const normalized = args.map((p) => p.replace(/^(!?)(dist\/)?tests\//, '$1'));
  const prefixes = normalized.filter((p) => !p.startsWith('!'));
  const excluded = normalized.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  return (readdirSync(testsDir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.test.js'))
    .filter((f) => prefixes.length === 0 || prefixes.some((p) => f.startsWith(p)))
    .filter((f) => !excluded.some((p) => f.startsWith(p)))
    .sort()
    .map((f) => join(testsDir, f));
}

// Sharing a suite between Node versions (test-on-node.js --split; CI runs the whole suite on the
// README's Node first): the files testing what changes with the Node version run on every Node,
// and the rest are dealt out in turn, so each of those still runs on one of the versions.
export const EVERY_NODE: readonly string[] = [
  'tools/jobs/', // better-sqlite3 and node-pty, built against each Node's own headers
  'tools/guarded/', // session search reads Hermes' state.db through better-sqlite3
  'http/auth/', // the credential store on better-sqlite3, OAuth on oidc-provider
  'http/mcp/', // the SDK's HTTP transports in both protocol eras
  'workers/', // the worker processes, their pipes and frames
  'platform/spawning/', // child processes, namespaces, subreapers, scopes
  'platform/thread-pool/', // piscina's worker threads
  'shared/',
];

/** `files` (paths under tests/) shared out among `count` runs: EVERY_NODE's in each, every other one in exactly one. */
export function shareOut(files: readonly string[], count: number): string[][] {
  const everywhere = files.filter((f) => EVERY_NODE.some((p) => f.startsWith(p)));
  const rest = files.filter((f) => !EVERY_NODE.some((p) => f.startsWith(p)));
  return Array.from({ length: count }, (_, i) => [...everywhere, ...rest.filter((_, j) => j % count === i)].sort());
}

// Running against each Hermes (run-tests.js; scripts/hermes-venv.ts has the pins): every selected
// file runs against the oldest supported Hermes; the files that compare with a real Hermes (its own
// functions, its tool server, its MCP client, its API server, homes and databases written by its own
// code) run once more against the newest.
export const EVERY_HERMES: readonly string[] = [
  'fidelity/', // each surface compared with Hermes' own functions
  'fidelity/file-state', // Hermes' per-task file state on sequences of calls (also under fidelity/; named for itself)
  'hermes/', // test homes built by Hermes' own config code
  'tools/hermes-tools/real-', // Hermes' tool server
  'tools/hermes-tools/descriptions',
  'tools/lsp/hermes-client', // Hermes' MCP client on hermes-mcp-lsp
  'tools/agent-tasks/real-hermes', // Hermes' API server behind the bridge profile
  'tools/agent-tasks/scripted-model',
  'tools/agent-tasks/catalog', // the agent-task tools in the gateway's catalog, on Hermes' API server
  'tools/agent-tasks/session-rotation', // Hermes' compression rotating a session under its API server
  'tools/agent-tasks/session-history-async',
  'tools/guarded/session-search', // state.db written by Hermes' SessionDB
  'tools/guarded/session-db-readiness',
  'tools/guarded/cronjob', // jobs.json written by Hermes' own cron code, the gateway's changes made by it
  'doctor/hermes-agent', // which Hermes the gateway fronts
  'platform/hermes/',
  'gates/real-hermes',
  'http/app-view/view-browser-vision', // browser_vision's analysis by Hermes' tool server
  'tools/files/read-documents-hermes', // read_file's documents through Hermes' own extractor
  'tools/files/write-lint-hermes', // write_file/patch syntax checks through Hermes' own linters
  'tools/files/write-args-hermes', // write_file's cross_profile as each Hermes' dispatch and guard read it
  'core/hermes-args', // the gateway's dispatch coercion against Hermes' coerce_tool_args
  'tools/command-guards/hermes-', // the guards' rules against each Hermes' own
];

/** `files` (paths under tests/) that run against `pin`. */
export function filesForPin(files: readonly string[], pin: HermesPin): string[] {
  return pin === 'oldest' ? [...files] : files.filter((f) => EVERY_HERMES.some((p) => f.startsWith(p)));
}

/**
 * run-tests' arguments: test prefixes, and `--hermes=PIN` (oldest, newest) or `--hermes=both` (the
 * default): which Hermes the selected files run against.
 */
export function runArguments(args: readonly string[]): { prefixes: string[]; pins: HermesPin[] } {
  const prefixes: string[] = [];
  let pins: HermesPin[] = [...HERMES_PINS];
  for (const a of args) {
    const flag = /^--hermes=(.*)$/.exec(a);
    if (!flag) prefixes.push(a);
    else if (flag[1] === 'both') pins = [...HERMES_PINS];
    else if ((HERMES_PINS as readonly string[]).includes(flag[1]!)) pins = [parsePin(flag[1]!, '--hermes')];
    else throw new Error(`--hermes must be one of ${[...HERMES_PINS, 'both'].join(', ')}, got ${JSON.stringify(flag[1])}`);
  }
  return { prefixes, pins };
}

/**
 * run-tests' exit status: the first failing pass's, else the signal's that stopped the run (128 +
 * its number, as a shell reports it). A run stopped between passes (the pass before the signal
 * passed, the next never ran) never reads as passed.
 */
export function runStatus(status: number, stoppedBy?: NodeJS.Signals): number {
  if (status !== 0 || stoppedBy === undefined) return status;
  return 128 + (osConstants.signals[stoppedBy] ?? 0);
}

// The unit tests (`npm run test:unit`, run-tests --unit): the test files that mirror a product file,
// the one of `supervisor/X/Y.ts` at `tests/X/Y.test.ts`, of `shared/a.ts` at `tests/shared/a.test.ts`
// (the same for workers/ and bin/). Found from the product tree, so a unit test written at its
// mirrored path joins the selection without being listed anywhere.
export const PRODUCT_DIRS: readonly string[] = ['bin', 'shared', 'supervisor', 'workers'];

/** The compiled name (under tests/) of the test that mirrors `file`, a product source path under the checkout. */
export function mirrorOf(file: string): string {
  return file.replace(/^supervisor\//, '').replace(/\.ts$/, '.test.js');
}

/** The compiled names (under tests/, sorted) of the unit tests whose source mirrors a product file of checkout `root`. */
export function mirroredTests(root: string): string[] {
  const sources = PRODUCT_DIRS.flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => join(dir, f)),
  );
  return sources
    .map(mirrorOf)
    .filter((t) => existsSync(join(root, 'tests', t.replace(/\.js$/, '.ts'))))
    .sort();
}

// The order a pass starts its files in: longest first, so the last files to start are short ones
// and the pass does not end on one long file running alone. The durations are the measured ones
// (run-tests records every file's, test-durations.ts).

/** `files` (paths under tests/) longest first by `durations` (ms); a file without one (a new file) first of all, as it may be long. */
export function longestFirst(files: readonly string[], durations: Readonly<Record<string, number>>): string[] {
  const known = (f: string) => durations[f] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => known(b) - known(a) || (a < b ? -1 : a > b ? 1 : 0));
}
