import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { connect, viaBridge, type TestGateway } from '../helpers/gateway.js';
import { hermesCron, homeWithCron, readJobsFile, startCronGateway } from '../fixtures/cron-home.js';

// cronjob against Hermes' own (tools/cronjob_tools.py and cron.jobs, through
// tests/hermes/drivers/cron_jobs.py) on the same cron/jobs.json: the list answers must be equal,
// and a job the gateway creates must be the record create_job writes for the same arguments.

const JOBS = [
  { prompt: 'Count the walruses', schedule: 'every 30m', name: 'interval' },
  { prompt: 'Weekly otter report', schedule: '0 9 * * 1', name: 'weekly', repeat: 3, deliver: 'telegram:-1001:7', skills: ['demo'] },
  { prompt: 'Remind me about the seals', schedule: '45m', name: 'one-shot' },
  { prompt: 'Paused puffin check', schedule: 'every 2h', name: 'paused' },
];

describe("cronjob answers and writes as Hermes' own cron code does", () => {
  let gw: TestGateway;
  const homes: string[] = [];
  let home: string;
  let hermesLists: Array<Record<string, unknown>>;
  before(async () => {
    home = homeWithCron();
    homes.push(home);
    const made = hermesCron(home, { create: JOBS, update: { paused: { enabled: false, state: 'paused', paused_at: '2026-12-01T10:00:00+00:00', paused_reason: 'holiday' } } });
    assert.equal((await made.done()).code, 0);
    // The tool's registered handler defaults include_disabled to true (the function itself to false).
    const listed = hermesCron(home, { tool: [{ action: 'list', include_disabled: false }, { action: 'list', include_disabled: true }] });
    const { code, last, stderr } = await listed.done();
    assert.equal(code, 0, stderr);
    hermesLists = (last as { results: Array<Record<string, unknown>> }).results;
    gw = await startCronGateway(home, 'on');
  });
  after(async () => {
    await gw?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  test('list, with and without disabled jobs, equals the Hermes cronjob tool answer', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const enabled = await viaBridge(client, 'cronjob', { action: 'list', include_disabled: false });
      assert.deepEqual(enabled.data, hermesLists[0]);
      const all = await viaBridge(client, 'cronjob', { action: 'list' });
      assert.deepEqual(all.data, hermesLists[1]);
      assert.equal((all.data.jobs as unknown[]).length, 1 + JOBS.length);
    } finally {
      await client.close();
    }
  });

  test('create writes the record create_job writes for the same arguments (but the provider snapshot)', async () => {
    const args = { prompt: 'Weekly narwhal census', schedule: '30 8 * * 2', name: 'twin', repeat: 2, deliver: 'telegram:-1001:7', skills: ['demo'] };
    const twin = homeWithCron();
    homes.push(twin);
    const client = await connect(gw.mcpUrl, 'legacy');
    try {
      const r = await viaBridge(client, 'cronjob', { action: 'create', confirm: true, ...args });
      assert.equal(r.isError, false, JSON.stringify(r.data));
    } finally {
      await client.close();
    }
    const made = hermesCron(twin, { create: [args] });
    assert.equal((await made.done()).code, 0);
    const ours = readJobsFile(home).jobs.find((j) => j.name === 'twin')!;
    const theirs = readJobsFile(twin).jobs.find((j) => j.name === 'twin')!;
    assert.deepEqual(Object.keys(ours), Object.keys(theirs), "Hermes' field order");
    // Hermes snapshots its resolved provider ('custom' here); the gateway leaves it null (see cronjob.test.ts).
    const comparable = (j: Record<string, unknown>) => ({ ...j, id: undefined, created_at: undefined, provider_snapshot: undefined });
    assert.deepEqual(comparable(ours), comparable(theirs));
    assert.equal(theirs.provider_snapshot, 'custom');
    assert.equal(ours.provider_snapshot, null);
    assert.ok(Math.abs(Date.parse(ours.created_at as string) - Date.parse(theirs.created_at as string)) < 60_000);
  });
});
