import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';

// A credential format beyond Hermes' own prefixes, printed by a job, is masked in the stored output
// tail: in the job_status receipt and in the job database row itself.

test('a GitLab personal access token printed by a job is masked in the receipt and the database row', async () => {
  const gw = await startTestGateway();
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const body = 'Xq7vR2mK9tLw4ZpN8sDe';
    // No `token:`-style key before it: only the token's own shape can give it away.
    const job = await prepareJob(client, token, `printf 'pushed with %s%s\\n' glpat- ${body}`, workdirIn(gw.home, 'jobs', 'secret'));
    // A printf can be done before job_start answers: started is what matters here, not still running.
    const started = (await viaBridge(client, 'job_start', job, token)).data.state;
    assert.ok(started === 'running' || started === 'succeeded', `job_start answered ${String(started)}`);
    const receipt = await waitForFinal(client, job);
    assert.equal(receipt.state, 'succeeded');
    assert.equal(receipt.output_tail, 'pushed with glpat-...8sDe\n');

    const db = new Database(gw.gateway.config.jobsDatabase, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT * FROM jobs WHERE id = ?').get(job.job_id) as Record<string, unknown>;
      assert.equal(row.output_tail, 'pushed with glpat-...8sDe\n');
      assert.ok(!JSON.stringify(row).includes(body));
    } finally {
      db.close();
    }
    await client.close();
  } finally {
    await gw.close();
  }
});
