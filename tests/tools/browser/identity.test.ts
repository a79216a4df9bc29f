import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { browse, homeWithConfig, startFakeCamofox } from '../../helpers/browser.js';
import { openSession, startTestGateway } from '../../helpers/gateway.js';

// The wire contract Hermes' tools/browser_camofox.py keeps with Camofox: under
// browser.camofox.managed_persistence the gateway browses as the same profile-derived user Hermes
// does (hermes_<uuid5(URL, "camofox-user:<HERMES_HOME>/browser_auth/camofox")[:10]>, checked here
// against Python's own uuid module), the tab group is sent as listItemId, and CAMOFOX_API_KEY
// goes as a Bearer token.

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

test('managed persistence: Hermes\' profile user, listItemId, Bearer key', async () => {
  const camofox = await startFakeCamofox();
  const home = homeWithConfig({ browser: { allow_private_urls: true, camofox: { managed_persistence: true } } });
  homes.push(home);
  const gw = await startTestGateway({ home, env: { CAMOFOX_URL: `${camofox.url}/`, CAMOFOX_API_KEY: 'k-123' } });
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await browse(client, token, 'browser_navigate', { url: 'http://10.9.8.7/' });
    assert.equal(r.isError, false, r.text);
    const expectedUser = execFileSync('python3', ['-c', 'import sys, uuid; print("hermes_" + uuid.uuid5(uuid.NAMESPACE_URL, "camofox-user:" + sys.argv[1]).hex[:10])', join(home, 'browser_auth', 'camofox')], { encoding: 'utf8' }).trim();
    const created = camofox.requests.find((q) => q.method === 'POST' && q.path === '/tabs')!;
    const body = created.body as { userId: string; listItemId: string; url: string };
    assert.equal(body.userId, expectedUser);
    assert.match(body.listItemId, /^task_[0-9a-f]{16}$/);
    assert.equal(body.url, 'http://10.9.8.7/');
    assert.equal(created.headers.authorization, 'Bearer k-123');
    const snap = camofox.requests.find((q) => q.path.startsWith('/tabs/tab-1/snapshot'))!;
    assert.equal(snap.path, `/tabs/tab-1/snapshot?userId=${expectedUser}`);
    assert.deepEqual(r.data, { success: true, url: 'http://10.9.8.7/', title: '', snapshot: '- button "Go" [e1]', element_count: 1 });
    await client.close();
  } finally {
    await gw.close();
    await camofox.close();
  }
});
