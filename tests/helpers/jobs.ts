import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { viaBridge } from './gateway.js';

export { openSession } from './gateway.js';

// What the job tests share: a client with an open capability session, workdirs inside the test
// gateway's root, and the prepare / wait-until-final steps of the job protocol.

// A type alias (not an interface) so a credential passes as tool arguments as it is.
export type JobCredential = { job_id: string; recovery_token: string };

/** A directory (created) below `root`. */
export function workdirIn(root: string, ...parts: string[]): string {
  const dir = join(root, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** job_prepare that must succeed; returns the credential. */
export async function prepareJob(client: Client, token: string, command: string, workdir: string, extra: Record<string, unknown> = {}): Promise<JobCredential> {
  const prep = await viaBridge(client, 'job_prepare', { command, workdir, ...extra }, token);
  assert.equal(prep.isError, false, JSON.stringify(prep.data));
  return { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
}

/** job_status with waits until the job leaves prepared/starting/running. */
export async function waitForFinal(client: Client, job: JobCredential): Promise<Record<string, unknown>> {
  for (let i = 0; i < 20; i++) {
    const s = await viaBridge(client, 'job_status', { ...job, wait_seconds: 5 });
    if (!['prepared', 'starting', 'running'].includes(s.data.state as string)) return s.data;
  }
  throw new Error(`job ${job.job_id} never finished`);
}
