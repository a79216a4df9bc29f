import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect, sessionToken, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The job database is a readiness component. A gateway started before its Hermes home exists says
// so in /readyz (not ready, with the reason and what to do), and once the home is made as that
// action says, the store opens by itself: /readyz turns ready and job_prepare works, no restart.

const dirs = tempDirs();
after(() => dirs.removeAll());

interface Readyz {
  status: string;
  reasons?: Array<{ component: string; reason: string; action: string }>;
  components: Record<string, { ready: boolean; status: string }>;
}

test('a job store that could not open is a readiness reason, and opens by itself once its home is made', async () => {
  const parent = dirs.make('hmcp-later-');
  const home = join(parent, 'home');
  const work = join(parent, 'work');
  mkdirSync(work);
  const gw = await startTestGateway({
    home,
    env: { HERMES_MCP_ROOTS: work, HERMES_MCP_TERMINAL_CWD: work, HERMES_MCP_JOB_STORE_RETRY_MIN_MS: '50', HERMES_MCP_JOB_STORE_RETRY_MAX_SECONDS: '1' },
  });
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const readyz = async () => {
      const res = await fetch(`${gw.url}/readyz`);
      return { status: res.status, body: (await res.json()) as Readyz };
    };
    const before = await readyz();
    assert.equal(before.status, 503, JSON.stringify(before.body));
    const reason = before.body.reasons?.find((r) => r.component === 'job_store');
    assert.ok(reason, JSON.stringify(before.body.reasons));
    assert.match(reason.reason, /ENOENT/);
    assert.match(reason.action, new RegExp(`make ${home} a directory`));
    assert.match(reason.action, /no restart needed/);

    const token = await sessionToken(client);
    const refused = await viaBridge(client, 'job_prepare', { command: 'echo hi', workdir: work }, token);
    assert.equal(refused.isError, true);
    assert.equal(refused.data.error, 'JOB_STORE_UNAVAILABLE', JSON.stringify(refused.data));

    // Made as the action says, with what a Hermes home holds.
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, 'SOUL.md'), '# Soul\n');

    const ready = await waitFor(async () => {
      const r = await readyz();
      return r.body.components.job_store?.ready ? r : undefined;
    }, 10_000, '/readyz to report the job store ready');
    assert.equal(ready.body.components.job_store!.status, 'ok');
    assert.ok(!ready.body.reasons?.some((r) => r.component === 'job_store'), JSON.stringify(ready.body.reasons));

    const prepared = await viaBridge(client, 'job_prepare', { command: 'echo hi', workdir: work }, token);
    assert.equal(prepared.isError, false, JSON.stringify(prepared.data));
    assert.match(prepared.data.job_id as string, /\S/);
    assert.ok(gw.logs.some((l) => l.event === 'job_store_opened'));
  } finally {
    await client.close().catch(() => {});
    await gw.close();
  }
});
