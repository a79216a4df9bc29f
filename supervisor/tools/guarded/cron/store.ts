import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';

// Hermes' job store, `$HERMES_HOME/cron/jobs.json` (cron/jobs.py `load_jobs` / `save_jobs`):
//   - read tolerantly: raw control characters inside strings are accepted (Hermes retries with
//     json strict=False), and a bare top-level list is taken as the job list;
//   - written as `{"jobs": [...], "updated_at": <Hermes now>}` exactly as Python's
//     `json.dump(..., indent=2)` writes it (ensure_ascii: every non-ASCII character as \uXXXX), so
//     jobs the gateway did not touch keep their bytes;
//   - replaced atomically: a `.jobs_*.tmp` file in cron/ (mode 0600), fsync, rename over the real
//     file (a symlinked jobs.json is written through, as upstream `atomic_replace`), chmod 0600,
//     fsync of the directory.
// Writes happen only under the lock in ./lock.ts; reads (list) take no lock, like Hermes, and are
// safe because a replace is atomic.

export type JobRecord = Record<string, unknown>;

/** A jobs.json larger than this is not a job list; refuse rather than load it. */
const MAX_JOBS_FILE_BYTES = 32 * 1024 * 1024;

export function cronPaths(hermesHome: string) {
  const cronDir = join(hermesHome, 'cron');
  return { cronDir, jobsFile: join(cronDir, 'jobs.json'), lockFile: join(cronDir, '.jobs.lock'), outputDir: join(cronDir, 'output') };
}

function storeInvalid(message: string): GatewayError {
  return new GatewayError(ErrorCode.CRONJOB_STORE_INVALID, message);
}

/** Escapes raw control characters that sit inside JSON strings (Python's strict=False). */
function escapeControlsInStrings(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = ch.charCodeAt(0);
    if (inString) {
      if (ch === '\\') {
        out += ch + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (ch === '"') inString = false;
      else if (code < 0x20) {
        out += '\\u' + code.toString(16).padStart(4, '0');
        continue;
      }
    } else if (ch === '"') inString = true;
    out += ch;
  }
  return out;
}

/** `load_jobs` on already-read text. */
export function parseJobsText(text: string): JobRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    try {
      data = JSON.parse(escapeControlsInStrings(text));
    } catch (e) {
      throw storeInvalid(`cron/jobs.json is not valid JSON (${(e as Error).message}); fix it with Hermes before changing jobs`);
    }
  }
  let jobs: unknown;
  if (Array.isArray(data)) jobs = data;
  else if (data && typeof data === 'object') jobs = (data as Record<string, unknown>).jobs ?? [];
  else throw storeInvalid(`cron/jobs.json is corrupted: expected {"jobs": [...]}, got ${data === null ? 'null' : typeof data}`);
  if (!Array.isArray(jobs) || !jobs.every((j) => j && typeof j === 'object' && !Array.isArray(j))) {
    throw storeInvalid('cron/jobs.json is corrupted: "jobs" is not a list of job objects');
  }
  return jobs as JobRecord[];
}

/** Reads the job list; a missing file (or cron directory) is an empty list. */
export async function loadJobs(jobsFile: string): Promise<JobRecord[]> {
  let info;
  try {
    info = await stat(jobsFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw storeInvalid(`cannot read cron/jobs.json: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!info.isFile()) throw storeInvalid('cron/jobs.json is not a regular file');
  if (info.size > MAX_JOBS_FILE_BYTES) throw storeInvalid(`cron/jobs.json is larger than ${MAX_JOBS_FILE_BYTES} bytes`);
  let text: string;
  try {
    text = await readFile(jobsFile, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw storeInvalid(`cannot read cron/jobs.json: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseJobsText(text);
}

/** `json.dumps(value, indent=2)` with Python's default ensure_ascii=True. */
export function pythonJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2);
  if (text === undefined) throw new TypeError('value is not JSON-serializable');
  // JSON.stringify already escapes controls, quotes and backslashes like Python; Python also
  // escapes DEL and everything beyond ASCII (each UTF-16 unit, so astral characters become pairs).
  return text.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function serializeJobs(jobs: JobRecord[], updatedAt: string): string {
  return pythonJson({ jobs, updated_at: updatedAt });
}

/** cron/ (and cron/output/) with Hermes' owner-only modes, inside an existing HERMES_HOME. */
export async function ensureCronDirs(hermesHome: string): Promise<void> {
  try {
    if (!(await stat(hermesHome)).isDirectory()) throw new Error('not a directory');
  } catch {
    throw storeInvalid(`HERMES_HOME ${hermesHome} does not exist; the gateway does not create a Hermes home`);
  }
  const { cronDir, outputDir } = cronPaths(hermesHome);
  for (const dir of [cronDir, outputDir]) {
    // One level at a time (the home exists): a recursive mkdir reports a read-only file system as
    // ENOENT, and the caller must be told the real reason (EROFS, ENOSPC) before anything is written.
    try {
      await mkdir(dir, { mode: 0o700 });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new GatewayError(ErrorCode.FILE_WRITE_FAILED, `cannot create ${dir}: ${code ?? (e as Error).message}; nothing was written`);
    }
    await chmod(dir, 0o700).catch(() => undefined);
  }
}

/** Temp file + fsync + rename + directory fsync. The caller asserts the lock is still held via `beforeRename`. */
export async function atomicReplace(jobsFile: string, cronDir: string, data: string, beforeRename: () => void): Promise<void> {
  const tmp = join(cronDir, `.jobs_${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  let target = jobsFile;
  try {
    const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await fh.writeFile(data, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    const link = await lstat(jobsFile).catch(() => null);
    if (link?.isSymbolicLink()) target = await realpath(jobsFile);
    beforeRename();
    await rename(tmp, target);
    renamed = true;
  } catch (e) {
    if (!renamed) await unlink(tmp).catch(() => undefined);
    if (e instanceof GatewayError) throw e;
    throw new GatewayError(
      ErrorCode.FILE_WRITE_FAILED,
      `cannot write cron/jobs.json: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; the previous file is unchanged`,
    );
  }
  // After the rename the new file is in place: mode and directory durability are best effort.
  await chmod(target, 0o600).catch(() => undefined);
  try {
    const dir = await open(cronDir, constants.O_RDONLY | constants.O_DIRECTORY);
    await dir.sync().catch(() => undefined);
    await dir.close();
  } catch {
    // some filesystems refuse a directory fsync; the rename itself is already atomic
  }
}
