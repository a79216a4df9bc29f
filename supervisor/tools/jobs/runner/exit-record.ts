import { existsSync, readFileSync } from 'node:fs';
import type { Completion } from '../store/index.js';

// The record a job's worker writes (atomically, beside the job database) when the command ends,
// before it reports the end over its channel: if the gateway dies in between, its successor reads
// the outcome here instead of calling the job unknown. A worker killed because its gateway died
// writes none, on purpose (workers/process-worker.ts).

interface ExitRecord {
  exitCode: number | null;
  signal: string | null;
  killed: boolean;
}

export function readExitRecord(path: string): ExitRecord | undefined {
  try {
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ExitRecord) : undefined;
  } catch {
    return undefined;
  }
}

export function completionFromRecord(record: ExitRecord | undefined): Completion | undefined {
  if (!record) return undefined;
  if (record.killed) return { state: 'cancelled', exitCode: null, signal: 'SIGKILL', reason: 'killed' };
  return { state: record.exitCode === 0 ? 'succeeded' : 'failed', exitCode: record.exitCode, signal: record.signal, reason: record.signal ? `signal ${record.signal}` : 'exited' };
}

