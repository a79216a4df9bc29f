import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';

// A job's stored output tail is redacted as its command's output, like the terminal's: a job that
// prints a secret-bearing file (`cat .env`) has its whole output redacted as ordinary text, so an
// opaque value without a known prefix is never stored; the same text printed by another command
// is stored as source (job_status then shows it redacted in the default mode, as every result).

test("a job that prints an .env file never stores the file's opaque values", async () => {
  const gw = await startTestGateway();
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const workdir = workdirIn(gw.home, 'jobs', 'env-file');
    const opaque = 'Zq8wX2vB7nM4' + 'kL9pR3tY';
    writeFileSync(join(workdir, '.env'), `SERVICE_TOKEN=${opaque}\nPORT=3000\n`);
    writeFileSync(join(workdir, 'notes.txt'), `SERVICE_TOKEN=${opaque}\nPORT=3000\n`);
    const stored: string[] = [];
    for (const command of ['cat .env', 'cat notes.txt']) {
      const job = await prepareJob(client, token, command, workdir);
      await viaBridge(client, 'job_start', job, token);
      const receipt = await waitForFinal(client, job);
      assert.equal(receipt.output_tail, 'SERVICE_TOKEN=***\nPORT=3000\n', command);
      const db = new Database(gw.gateway.config.jobsDatabase, { readonly: true, fileMustExist: true });
      try {
        stored.push((db.prepare('SELECT output_tail FROM jobs WHERE id = ?').get(job.job_id) as { output_tail: string }).output_tail);
      } finally {
        db.close();
      }
    }
    assert.deepEqual(stored, ['SERVICE_TOKEN=***\nPORT=3000\n', `SERVICE_TOKEN=${opaque}\nPORT=3000\n`]);
    await client.close();
  } finally {
    await gw.close();
  }
});
