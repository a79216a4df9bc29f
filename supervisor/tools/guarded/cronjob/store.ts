import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';

// Hermes' job store, `$HERMES_HOME/cron/jobs.json` (cron/jobs.py `load_jobs`), as `list` reads it:
// tolerantly (raw control characters inside strings are accepted, as Hermes retries with json
// strict=False, and a bare top-level list is taken as the job list), without a lock, like Hermes:
// Hermes replaces the file atomically. The gateway never writes it; Hermes' own code does
// (./mutations.ts).

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
