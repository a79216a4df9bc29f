import { closeSync, constants, existsSync, fchmodSync, lstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { processIsAlive } from '../../../../shared/proc.js';
import { activeJobs, assertSafePath, gateState, jobCounts, liveSignalPauses, openJobDatabase, openJobDatabaseAsIs, OWNER_TOKEN_PATTERN, pauseAdmission, resumeAdmission, type JobDatabase, type JobRow } from '../store/index.js';
import { monotonicMs } from '../../../../shared/clock.js';

// The commands of hermes-mcp-admission (bin/admission.ts parses their arguments): status, drain,
// resume and snapshot over the job database (reconcile is reconcile.ts). They talk to
// the database directly, never over MCP, so no agent can drain or resume, and share the gate with
// every gateway process through SQLite: a pause taken here is seen by the next admission anywhere.
// What they print never includes a token hash, a command or a preparer.

/** Exit codes beside 0 (done) and 1 (refused or failed: stderr says `CODE: message`). */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** A drain timed out, with admission left paused (fail closed: the operator decides what next). */
export const EXIT_DRAIN_TIMEOUT = 3;
const DRAIN_POLL_MS = 250;
// A CLI-only condition, not a gateway error: it never reaches an MCP client.
const DRAIN_TIMEOUT = 'DRAIN_TIMEOUT';

/** Where a command's result goes: as JSON with --json, else as the human text. */
export interface Out {
  print(obj: object, human: string): void;
}

/** A command ready to run on the opened database; its exit code. */
export type AdmissionRun = (db: JobDatabase, out: Out) => number | Promise<number>;

/** An argument the operator got wrong: exit 2, with the command's usage. */
export class UsageError extends Error {}

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

/** The owner token of drain and resume, from --owner-token-file (preferred) or --owner-token. */
export function ownerToken(given: { file: string | undefined; token: string | undefined }): string {
  if (given.file !== undefined && given.token !== undefined) throw new UsageError('give --owner-token-file or --owner-token, not both');
  if (given.file !== undefined) return tokenFromFile(given.file);
  if (given.token === undefined) throw new UsageError(`an owner token is required: --owner-token-file FILE (preferred; create one with ${MAKE_TOKEN}) or --owner-token T`);
  if (given.token === '') throw new UsageError('--owner-token is required');
  // Checked here so a typo'd or truncated token never becomes the gate's owner.
  if (!OWNER_TOKEN_PATTERN.test(given.token)) throw new UsageError(`--owner-token must be ${TOKEN_FORMAT}`);
  return given.token;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

// Only these columns leave the database: token hashes, the command and the preparer stay inside.
const describeJob = (j: JobRow) => ({ id: j.id, state: j.state, workdir: j.workdir, started_at: iso(j.started_at), deadline: iso(j.deadline_at) });
const jobLine = (j: ReturnType<typeof describeJob>) => `  ${j.id}  ${j.state}  ${j.workdir}  started ${j.started_at ?? '-'}  deadline ${j.deadline ?? '-'}`;

export function status(db: JobDatabase, out: Out): number {
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

/**
 * Pauses admission under `token`, then waits until no job is starting, running or unknown. On
 * timeout it exits 3 with admission still paused; so does an interrupted drain.
 */
export async function drain(db: JobDatabase, out: Out, token: string, timeoutSeconds: number, reason: string): Promise<number> {
  // Claim first, then wait: from here no new job can start, so the active set only shrinks.
  pauseAdmission(db, token, reason, Date.now());
  const deadline = monotonicMs() + timeoutSeconds * 1000;
  for (;;) {
    const active = activeJobs(db).map(describeJob);
    if (active.length === 0) {
      out.print({ drained: true, paused: true }, 'drained');
      return 0;
    }
    if (monotonicMs() >= deadline) {
      out.print({ drained: false, paused: true, active_jobs: active }, `still active:\n${active.map(jobLine).join('\n')}`);
      process.stderr.write(`${DRAIN_TIMEOUT}: ${active.length} job(s) still active after ${timeoutSeconds} s (${active.map((j) => j.id).join(', ')}); admission stays paused\n`);
      return EXIT_DRAIN_TIMEOUT;
    }
    await sleep(DRAIN_POLL_MS);
  }
}

export function resume(db: JobDatabase, out: Out, token: string): number {
  const resumed = resumeAdmission(db, token);
  out.print({ resumed, paused: false }, resumed ? 'resumed' : 'admission was not paused');
  return 0;
}

/** A consistent copy of the database into a new 0600 file at `output`. */
export async function snapshot(db: JobDatabase, out: Out, output: string): Promise<number> {
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

/**
 * Runs `run` on the job database at `database`, printing to stdout (JSON lines with `json`).
 * openJobDatabase checks the path (no symlink, trusted directories) before SQLite touches it;
 * create: false, so a mistyped path fails instead of starting an empty database. `asIs` (snapshot):
 * read-only and never migrated, so a copy taken before an upgrade keeps the earlier schema.
 */
export async function runOnJobDatabase(database: string, json: boolean, run: AdmissionRun, options: { asIs?: boolean } = {}): Promise<number> {
  const out: Out = { print: (obj, human) => void process.stdout.write(`${json ? JSON.stringify(obj) : human}\n`) };
  const db = options.asIs ? openJobDatabaseAsIs(database) : openJobDatabase(database, { create: false });
  try {
    return await run(db, out);
  } finally {
    db.close();
  }
}
