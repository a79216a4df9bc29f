#!/usr/bin/env node
// hermes-mcp-admission: the operator's handle on the job admission gate, for maintenance windows.
// It talks to the job database directly (never over MCP, so no agent can drain or resume), and
// shares the gate with every gateway process through SQLite: a pause taken here is seen by the
// next admission anywhere.
//
// Exit codes: 0 done; 1 refused or failed (stderr says `CODE: message`); 2 usage error;
// 3 drain timed out, with admission left paused (fail closed: the operator decides what next).
// reconcile --apply exits 1 when an unknown job could not be released (something of it survived).
import { closeSync, constants, existsSync, fchmodSync, lstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ErrorCode, GatewayError, isGatewayError } from '../shared/errors.js';
import { loadLimits } from '../shared/limits.js';
import { processIsAlive } from '../shared/proc.js';
import { defaultJobsDatabase } from '../supervisor/platform/config.js';
import { gatewayEnvironment } from '../supervisor/platform/environment.js';
import { OWNER_TOKEN_PATTERN, activeJobs, gateState, jobCounts, liveSignalPauses, pauseAdmission, resumeAdmission, type JobRow } from '../supervisor/tools/jobs/job-repository.js';
import { assertSafePath, openJobDatabase, type JobDatabase } from '../supervisor/tools/jobs/database.js';
import { reconcile } from '../scripts/admission-reconcile.js';

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_DRAIN_TIMEOUT = 3;
const DRAIN_POLL_MS = 250;
// A CLI-only condition, not a gateway error: it never reaches an MCP client.
const DRAIN_TIMEOUT = 'DRAIN_TIMEOUT';

const COMMON = '[--database PATH] [--json]';
const USAGE: Record<string, string> = {
  status: `hermes-mcp-admission status ${COMMON}\n  Gate state, job counts by state and the active jobs (never tokens or commands).`,
  drain:
    `hermes-mcp-admission drain ${COMMON} (--owner-token-file F | --owner-token T) [--timeout SECONDS] [--reason TEXT]\n` +
    '  Pauses admission under T, then waits until no job is starting, running or unknown\n' +
    '  (prepared jobs do not block). On timeout (default drainTimeoutSeconds) exits 3 and\n' +
    '  admission stays paused; interrupting it also leaves admission paused.',
  resume: `hermes-mcp-admission resume ${COMMON} (--owner-token-file F | --owner-token T)\n  Reopens admission; only the token that paused it may. Prefer --owner-token-file (a chmod 600\n  file of yours): a token on the command line is visible to other local users in ps.`,
  snapshot: `hermes-mcp-admission snapshot ${COMMON} --output PATH\n  Consistent copy of the job database into a new 0600 file.`,
  reconcile:
    `hermes-mcp-admission reconcile ${COMMON} [--job ID] [--apply]\n` +
    '  Lists the unknown jobs (left by a gateway that was killed) that hold job capacity and their\n' +
    '  workspaces, and what of each still runs. A dry run unless --apply: then each is released as\n' +
    '  job_cancel releases one (whatever of it remains is killed first; its direct cgroup under\n' +
    '  $HERMES_MCP_CGROUP_ROOT too), recorded cancelled (operator_reconciled) with one audit line in\n' +
    '  DATABASE-audit.jsonl. No recovery token needed: this is the way out when nobody holds them.',
};
// Said in every usage text: where the database is, what the owner token is and how to make one,
// and that a value may begin with '-' (a base64url owner token does one time in 64).
const NOTES = [
  '  --database defaults to $HERMES_MCP_JOBS_DATABASE, else $HERMES_HOME/gateway-jobs.sqlite3',
  '  (HERMES_HOME defaulting to ~/.hermes): the database the gateway itself uses.',
  '  The owner token is a secret you create: 32-128 characters from A-Z a-z 0-9 . _ ~ + / = -.',
  '  The token that pauses admission is the only one that can reopen it. Make one, private:',
  '    (umask 077; mkdir -p ~/.config/hermes && head -c 33 /dev/urandom | base64 > ~/.config/hermes/admission-token)',
  '  and pass --owner-token-file ~/.config/hermes/admission-token (a token on the command line is',
  '  visible to other local users in ps).',
  "  The argument after an option is always its value, even one beginning with '-'; --owner-token=T always works.",
  '  Not on PATH in a checkout: run it from there as npm run admission -- ARGS, or node dist/bin/admission.js ARGS.',
].join('\n');
const TOP_USAGE = `usage:\n${Object.values(USAGE).map((u) => `  ${u.replace(/\n/g, '\n  ')}`).join('\n')}\n  -h, --help on any subcommand prints its usage.\n${NOTES}\n`;

type Values = Record<string, string | boolean | undefined>;
type Run = (db: JobDatabase, out: Out) => number | Promise<number>;
interface Out {
  print(obj: object, human: string): void;
}

class UsageError extends Error {}

function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

const TOKEN_FORMAT = '32-128 characters from A-Z a-z 0-9 . _ ~ + / = -';
const MAKE_TOKEN = '(umask 077; head -c 33 /dev/urandom | base64 > FILE)';

/**
 * The token from a private file: a regular file of ours that nobody else can read or write, whose
 * first line is the token. Every problem with the file is reported at once, so fixing it takes one
 * round, not one per problem.
 */
function tokenFromFile(path: string): string {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `--owner-token-file ${path} does not exist. The owner token is a secret you create (${TOKEN_FORMAT}), e.g. ${MAKE_TOKEN.replace('FILE', path)}`
        : `--owner-token-file ${path}: ${code}`,
    );
  }
  if (!st.isFile()) throw new UsageError(`--owner-token-file ${path} is not a regular file (symbolic links are refused)`);
  const problems: string[] = [];
  if (st.uid !== process.getuid?.()) problems.push(`it belongs to uid ${st.uid}, not to you`);
  if (st.mode & 0o077) problems.push(`it has mode ${(st.mode & 0o777).toString(8)}, so group or others can access it (chmod 600 ${path}, and consider a new token)`);
  let token = '';
  try {
    token = readFileSync(path, 'utf8').split('\n')[0]!.replace(/\r$/, '');
    // Checked here so a typo'd or truncated token never becomes the gate's owner.
    if (!OWNER_TOKEN_PATTERN.test(token)) problems.push(`its first line is not a token of ${TOKEN_FORMAT} (${token.length} characters read)`);
  } catch (e) {
    problems.push(`it cannot be read (${(e as NodeJS.ErrnoException).code})`);
  }
  if (problems.length > 0) throw new UsageError(`--owner-token-file ${path}: ${problems.join('; ')}`);
  return token;
}

function ownerToken(values: Values): string {
  if (typeof values['owner-token-file'] === 'string' && typeof values['owner-token'] === 'string') throw new UsageError('give --owner-token-file or --owner-token, not both');
  if (typeof values['owner-token-file'] === 'string') return tokenFromFile(values['owner-token-file']);
  if (values['owner-token'] === undefined) throw new UsageError(`an owner token is required: --owner-token-file FILE (preferred; create one with ${MAKE_TOKEN}) or --owner-token T`);
  const token = required(values, 'owner-token');
  // Checked here so a typo'd or truncated token never becomes the gate's owner.
  if (!OWNER_TOKEN_PATTERN.test(token)) throw new UsageError(`--owner-token must be ${TOKEN_FORMAT}`);
  return token;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

// Only these columns leave the database: token hashes, the command and the preparer stay inside.
const describeJob = (j: JobRow) => ({ id: j.id, state: j.state, workdir: j.workdir, started_at: iso(j.started_at), deadline: iso(j.deadline_at) });
const jobLine = (j: ReturnType<typeof describeJob>) => `  ${j.id}  ${j.state}  ${j.workdir}  started ${j.started_at ?? '-'}  deadline ${j.deadline ?? '-'}`;

function status(db: JobDatabase, out: Out): number {
  const gate = gateState(db);
  const counts = jobCounts(db);
  const active = activeJobs(db).map(describeJob);
  // A gateway paused by SIGUSR1 refuses fresh starts too: shown beside the operator's gate, as
  // /readyz shows it (signal_paused), for every gateway process using this database.
  const signalPaused = liveSignalPauses(db, processIsAlive).map((p) => ({ pid: p.pid, paused_at: iso(p.paused_at) }));
  const signalText = signalPaused.map((p) => `; fresh starts paused by SIGUSR1 on gateway pid ${p.pid} since ${p.paused_at} (SIGUSR2 resumes)`).join('');
  const gateText = (gate.paused ? `paused since ${iso(gate.paused_at)}${gate.reason ? ` (reason: ${gate.reason})` : ''}` : 'open') + signalText;
  const countText = Object.keys(counts).length ? Object.entries(counts).map(([s, n]) => `${s} ${n}`).join(', ') : 'none';
  out.print(
    { paused: gate.paused, paused_at: iso(gate.paused_at), reason: gate.reason, signal_paused: signalPaused, counts, active_jobs: active },
    [`admission: ${gateText}`, `jobs: ${countText}`, active.length ? `active jobs:\n${active.map(jobLine).join('\n')}` : 'active jobs: none'].join('\n'),
  );
  return 0;
}

async function drain(db: JobDatabase, out: Out, token: string, timeoutSeconds: number, reason: string): Promise<number> {
  // Claim first, then wait: from here no new job can start, so the active set only shrinks.
  pauseAdmission(db, token, reason, Date.now());
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    const active = activeJobs(db).map(describeJob);
    if (active.length === 0) {
      out.print({ drained: true, paused: true }, 'drained');
      return 0;
    }
    if (Date.now() >= deadline) {
      out.print({ drained: false, paused: true, active_jobs: active }, `still active:\n${active.map(jobLine).join('\n')}`);
      process.stderr.write(`${DRAIN_TIMEOUT}: ${active.length} job(s) still active after ${timeoutSeconds} s (${active.map((j) => j.id).join(', ')}); admission stays paused\n`);
      return EXIT_DRAIN_TIMEOUT;
    }
    await sleep(DRAIN_POLL_MS);
  }
}

function resume(db: JobDatabase, out: Out, token: string): number {
  const resumed = resumeAdmission(db, token);
  out.print({ resumed, paused: false }, resumed ? 'resumed' : 'admission was not paused');
  return 0;
}

async function snapshot(db: JobDatabase, out: Out, output: string): Promise<number> {
  assertSafePath(output, 'snapshot');
  // A stale journal or WAL beside the output would be replayed into the copy by SQLite.
  for (const side of ['-journal', '-wal', '-shm']) {
    if (existsSync(output + side)) throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `snapshot ${output}${side} already exists; remove it or choose another path`);
  }
  // Create the file ourselves, exclusively and 0600 from the first byte (O_EXCL also refuses an
  // existing file or symlink); SQLite then writes the copy into it and gives its journal that mode.
  let fd: number;
  try {
    fd = openSync(output, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, code === 'EEXIST' ? `snapshot ${output} already exists; choose a new path` : `snapshot ${output}: ${code}`);
  }
  try {
    fchmodSync(fd, 0o600); // the umask may have narrowed it below owner read/write
  } finally {
    closeSync(fd);
  }
  try {
    // Copy every page in one step: one read transaction, so the copy is a single consistent
    // state and is never restarted by a gateway writing meanwhile (WAL readers block no writer).
    await db.backup(output, { progress: () => 0x7fffffff });
  } catch (e) {
    unlinkSync(output);
    throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `snapshot ${output}: ${(e as Error).message}`);
  }
  out.print({ snapshot: output }, `snapshot written to ${output}`);
  return 0;
}

const str = { type: 'string' } as const;

// Each subcommand accepts only its own flags (a misplaced one is an error, not ignored) and turns
// them into a runner before the database is opened, so usage errors never depend on the store.
const COMMANDS: Record<string, { flags: FlagSpec; prepare(values: Values, database: string): Run }> = {
  status: { flags: {}, prepare: () => status },
  drain: {
    flags: { 'owner-token': str, 'owner-token-file': str, timeout: str, reason: str },
    prepare(values) {
      const token = ownerToken(values);
      const timeout = typeof values.timeout === 'string' ? values.timeout : String(loadLimits(process.env).drainTimeoutSeconds);
      if (!/^[1-9][0-9]{0,6}$/.test(timeout)) throw new UsageError('--timeout must be a whole number of seconds, at least 1');
      const reason = typeof values.reason === 'string' ? values.reason : 'operator drain';
      // The reason reaches agents in JOB_ADMISSION_PAUSED, so keep it one short line.
      if (reason.length > 200 || /[\x00-\x1f\x7f]/.test(reason)) throw new UsageError('--reason must be one line of at most 200 characters');
      return (db, out) => drain(db, out, token, Number(timeout), reason);
    },
  },
  resume: {
    flags: { 'owner-token': str, 'owner-token-file': str },
    prepare(values) {
      const token = ownerToken(values);
      return (db, out) => resume(db, out, token);
    },
  },
  snapshot: {
    flags: { output: str },
    prepare(values) {
      const output = required(values, 'output');
      return (db, out) => snapshot(db, out, output);
    },
  },
  reconcile: {
    flags: { job: str, apply: { type: 'boolean' } },
    prepare(values, database) {
      const jobId = typeof values.job === 'string' ? values.job : undefined;
      const cgroupRoot = process.env.HERMES_MCP_CGROUP_ROOT;
      return (db, out) => reconcile(db, out, { database, apply: values.apply === true, ...(jobId ? { jobId } : {}), ...(cgroupRoot ? { cgroupRoot } : {}) });
    },
  },
};

type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/**
 * parseArgs, strict about names and shapes, but an option that takes a value always takes the next
 * argument, as getopt does. (parseArgs' own strict mode rejects `--owner-token -abc` as ambiguous,
 * and a base64url owner token begins with '-' one time in 64.)
 */
function parseFlags(args: string[], options: FlagSpec): Values {
  const { values, tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'positional') throw new UsageError(`unexpected argument ${JSON.stringify(t.value)}`);
    if (t.kind !== 'option') continue;
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!spec) throw new UsageError(`unknown option ${t.rawName}`);
    if (spec.type === 'string' && t.value === undefined) throw new UsageError(`${t.rawName} needs a value`);
    if (spec.type === 'boolean' && t.value !== undefined) throw new UsageError(`${t.rawName} takes no value`);
  }
  return values;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '-h' || name === '--help') {
    process.stdout.write(TOP_USAGE);
    return 0;
  }
  try {
    const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(name === undefined ? 'a subcommand is required' : `unknown subcommand ${JSON.stringify(name)}`);
    const values = parseFlags(rest, { ...command.flags, database: str, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      process.stdout.write(`usage: ${USAGE[name!]}\n${NOTES}\n`);
      return 0;
    }
    const database = typeof values.database === 'string' ? required(values, 'database') : defaultJobsDatabase(gatewayEnvironment(process.env).env);
    const run = command.prepare(values, database);
    const json = values.json === true;
    const out: Out = { print: (obj, human) => void process.stdout.write(`${json ? JSON.stringify(obj) : human}\n`) };
    // openJobDatabase checks the path (no symlink, trusted directories) before SQLite touches it;
    // create: false, so a mistyped path fails instead of starting an empty database.
    const db = openJobDatabase(database, { create: false });
    try {
      return await run(db, out);
    } finally {
      db.close();
    }
  } catch (e) {
    if (e instanceof UsageError) {
      const usage = name !== undefined && Object.hasOwn(USAGE, name) ? `usage: ${USAGE[name]}\n` : TOP_USAGE;
      process.stderr.write(`${ErrorCode.INVALID_ARGUMENTS}: ${e.message}\n${usage}`);
      return EXIT_USAGE;
    }
    const code = isGatewayError(e) ? e.code : ErrorCode.INTERNAL_ERROR;
    process.stderr.write(`${code}: ${(e as Error).message}\n`);
    return EXIT_FAILED;
  }
}

process.exitCode = await main(process.argv.slice(2));
