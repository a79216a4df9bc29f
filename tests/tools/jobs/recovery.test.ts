import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { maintenancePass, testClock } from '../../helpers/clock.js';
import { abortableToolCall, connect, sessionToken, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';
import { openSession, workdirIn } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// Recovery by credential: a lost start answer, an ended or expired session, duplicate
// preparations; and the rule that the id alone grants nothing.

describe('jobs: recovery by credential', () => {
  let gw: TestGateway;
  const clock = testClock();
  before(async () => {
    gw = await startTestGateway({ now: clock.now, limits: { jobKillGraceSeconds: 1, sessionTokenTtlSeconds: 2 } });
  });
  after(async () => {
    await gw.close();
  });

  const session = () => openSession(gw.mcpUrl);
  const workdir = (name: string) => workdirIn(gw.home, 'rec', name);

  test('lost start answer: job_status from a new connection with the saved credential; a second start does not relaunch', async () => {
    const { client, token } = await session();
    const dir = workdir('lost');
    const log = join(dir, 'launches');
    const prep = await viaBridge(client, 'job_prepare', { command: `echo launch >> ${log}; sleep 1`, workdir: dir }, token);
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    const call = abortableToolCall(gw.mcpUrl, 'job_start', job, token);
    // Drop the connection once the start has reached the host (its command has begun), whether or
    // not the answer was on its way: from the client's side the answer is lost either way.
    await waitFor(() => existsSync(log), 5000, 'the start to reach the host (its command has begun)');
    call.abort();
    await call.done;
    await client.close();

    const fresh = await connect(gw.mcpUrl, 'modern');
    let status = await viaBridge(fresh, 'job_status', { ...job, wait_seconds: 3 });
    for (let i = 0; i < 10 && status.data.state !== 'succeeded'; i++) status = await viaBridge(fresh, 'job_status', { ...job, wait_seconds: 3 });
    assert.equal(status.data.state, 'succeeded', JSON.stringify(status.data));
    const other = await sessionToken(fresh);
    const again = await viaBridge(fresh, 'job_start', job, other);
    assert.equal(again.data.state, 'succeeded', 'repeating an authorized start returns the job as it is');
    // A relaunch would be running now (a job is launched before job_start answers, and this one takes 1 s).
    assert.equal(gw.jobs.runner!.activeLocal, 0, 'no second launch is running');
    assert.equal(readFileSync(log, 'utf8'), 'launch\n', 'launched exactly once');
    await fresh.close();
  });

  test('the job outlives its session: session_close and token expiry do not stop it, and an expired token passed along does not block status', async () => {
    const { client, token } = await session();
    // The job runs until the test lets it finish, so "still running" never depends on timing.
    const dir = workdir('outlive');
    const go = join(dir, 'go');
    const prep = await viaBridge(client, 'job_prepare', { command: `while [ ! -e ${go} ]; do sleep 0.05; done; echo survived`, workdir: dir }, token);
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    await viaBridge(client, 'job_start', job, token);
    await viaBridge(client, 'session_close', {}, token);
    clock.advance(2000); // the 2 s token lifetime is over
    maintenancePass(gw); // the expiry sweep releases the expired owners' resources
    const running = await viaBridge(client, 'job_status', job, token);
    assert.equal(running.isError, false, JSON.stringify(running.data));
    assert.equal(running.data.state, 'running');
    writeFileSync(go, '');
    const final = await viaBridge(client, 'job_status', { ...job, wait_seconds: 5 }, token);
    assert.equal(final.data.state, 'succeeded');
    assert.match(final.data.output_tail as string, /survived/);
    await client.close();
  });

  test('a wrong token and a missing id get the same JOB_NOT_FOUND; the id alone grants nothing', async () => {
    const { client, token } = await session();
    const prep = await viaBridge(client, 'job_prepare', { command: 'true', workdir: workdir('auth') }, token);
    const wrong = await viaBridge(client, 'job_status', { job_id: prep.data.job_id, recovery_token: 'hjr_' + 'x'.repeat(43) });
    const missing = await viaBridge(client, 'job_status', { job_id: 'job_' + '0'.repeat(24), recovery_token: prep.data.recovery_token });
    assert.equal(wrong.data.error, 'JOB_NOT_FOUND');
    assert.equal(missing.data.error, 'JOB_NOT_FOUND');
    assert.equal(String(wrong.data.message).replace(String(prep.data.job_id), 'ID'), String(missing.data.message).replace('job_' + '0'.repeat(24), 'ID'));
    const cancel = await viaBridge(client, 'job_cancel', { job_id: prep.data.job_id, recovery_token: 'hjr_' + 'x'.repeat(43) });
    assert.equal(cancel.data.error, 'JOB_NOT_FOUND');
    assert.equal((await viaBridge(client, 'job_status', { job_id: prep.data.job_id, recovery_token: prep.data.recovery_token })).data.state, 'prepared');
    await client.close();
  });

  test('a duplicate preparation returns the earlier id and state, never its token; a different request under the same key is refused', async () => {
    const { client, token } = await session();
    const dir = workdir('dup');
    const key = 'key-' + Math.random().toString(36).slice(2).padEnd(16, 'x');
    const first = await viaBridge(client, 'job_prepare', { command: 'echo once', workdir: dir, idempotency_key: key }, token);
    const second = await viaBridge(client, 'job_prepare', { command: 'echo once', workdir: dir, idempotency_key: key }, token);
    assert.equal(second.data.job_id, first.data.job_id);
    assert.equal(second.data.state, 'prepared');
    assert.equal(second.data.duplicate, true);
    assert.equal(second.data.recovery_token, undefined);
    assert.ok(!JSON.stringify(second.result).includes(first.data.recovery_token as string));
    const conflict = await viaBridge(client, 'job_prepare', { command: 'echo other', workdir: dir, idempotency_key: key }, token);
    assert.equal(conflict.data.error, 'JOB_IDEMPOTENCY_CONFLICT');
    await client.close();
  });

  test('prepare and start need a session; status does not', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const prep = await viaBridge(client, 'job_prepare', { command: 'true', workdir: workdir('owner') });
    assert.equal(prep.data.error, 'OWNER_REQUIRED');
    const { token } = await session();
    const ok = await viaBridge(client, 'job_prepare', { command: 'true', workdir: workdir('owner') }, token);
    const start = await viaBridge(client, 'job_start', { job_id: ok.data.job_id, recovery_token: ok.data.recovery_token });
    assert.equal(start.data.error, 'OWNER_REQUIRED');
    const status = await viaBridge(client, 'job_status', { job_id: ok.data.job_id, recovery_token: ok.data.recovery_token });
    assert.equal(status.data.state, 'prepared');
    await client.close();
  });

  test('the database is 0600 and holds the token only as a hash, the command only until admission', async () => {
    const { client, token } = await session();
    // ':' prints nothing, so only the stored command itself could carry the marker into the file.
    const prep = await viaBridge(client, 'job_prepare', { command: ': payload-marker-123', workdir: workdir('db') }, token);
    const path = gw.gateway.config.jobsDatabase;
    assert.equal(statSync(path).mode & 0o777, 0o600);
    // Read independently of the gateway's connection, as any other SQLite client would.
    const db = new Database(path, { readonly: true });
    const row = () => db.prepare('SELECT token_hash, command FROM jobs WHERE id = ?').get(prep.data.job_id) as { token_hash: string; command: string | null };
    assert.equal(row().command, ': payload-marker-123', 'kept while prepared (it must start exactly as frozen)');
    assert.equal(row().token_hash, createHash('sha256').update(prep.data.recovery_token as string).digest('hex'));
    await viaBridge(client, 'job_start', { job_id: prep.data.job_id, recovery_token: prep.data.recovery_token }, token);
    assert.equal(row().command, null, 'the payload is discarded once admitted');
    db.close();
    // secure_delete plus the checkpoint after admission (the next maintenance pass): the payload is
    // gone from the file and the WAL too.
    maintenancePass(gw);
    for (const file of [path, `${path}-wal`]) {
      try {
        const bytes = readFileSync(file);
        assert.ok(!bytes.includes(prep.data.recovery_token as string), `${file} never holds the token`);
        assert.ok(!bytes.includes('payload-marker-123'), `${file} no longer holds the admitted command`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    await client.close();
  });
});
