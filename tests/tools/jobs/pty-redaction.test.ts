import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';

// A PTY job's output is redacted like any job's, after rendering: a token broken up by colour
// codes and wrapped across rows of a narrow terminal is one line of text again, so its shape
// gives it away in the receipt, the database row and process_manage alike.

test('a token split by colour codes and wrapped by a narrow terminal is masked everywhere', async () => {
  const gw = await startTestGateway();
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const body = 'Xq7vR2mK9tLw4ZpN8sDe';
    // 36 characters on a 20-column terminal: the token starts on one row and ends on the next.
    const command = `printf 'pushed with \\033[1mglpat-\\033[0m%s\\n' ${body}`;
    const job = await prepareJob(client, token, command, workdirIn(gw.home, 'jobs', 'pty-secret'), { pty: true, cols: 20, rows: 5 });
    await viaBridge(client, 'job_start', job, token);
    const receipt = await waitForFinal(client, job);
    assert.equal(receipt.state, 'succeeded');
    assert.equal(receipt.output_tail, 'pushed with glpat-...8sDe\n');

    const procs = (await viaBridge(client, 'process_manage', { action: 'list' }, token)).data.processes as Array<Record<string, unknown>>;
    const id = procs.find((p) => p.job_id === job.job_id)!.session_id;
    const log = await viaBridge(client, 'process_manage', { action: 'log', session_id: id }, token);
    assert.equal(log.data.output, 'pushed with glpat-...8sDe');

    const db = new Database(gw.gateway.config.jobsDatabase, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT * FROM jobs WHERE id = ?').get(job.job_id) as Record<string, unknown>;
      assert.ok(!JSON.stringify(row).includes(body.slice(-12)), 'no part of the token is stored');
    } finally {
      db.close();
    }
    await client.close();
  } finally {
    await gw.close();
  }
});
