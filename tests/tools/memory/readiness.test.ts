import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, connect, optionalComponents, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { honchoJson, startMemoryGateway, USER_PEER } from '../../helpers/memory.js';

// /readyz `memory`: ready when Honcho answers, not_configured without a Honcho configuration, error
// otherwise; and the identity the gateway reaches Honcho with, from honcho.json and the environment.

type Ready = { status: string; components: Record<string, { ready: boolean; status: string; required: boolean; reason?: string; details?: Record<string, unknown> }> };

async function readyz(url: string): Promise<{ code: number; body: Ready }> {
  const res = await fetch(`${url}/readyz`);
  return { code: res.status, body: (await res.json()) as Ready };
}

test('/readyz memory is ready when the configured Honcho answers, and required memory then passes', async () => {
  const m = await startMemoryGateway({ env: { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('memory') } });
  try {
    const { code, body } = await readyz(m.gw.url);
    const memory = body.components.memory!;
    assert.equal(memory.ready, true, JSON.stringify(memory));
    assert.equal(memory.status, 'ok');
    assert.equal(memory.required, true);
    assert.deepEqual([memory.details!.workspace, memory.details!.user_peer, memory.details!.assistant_peer], ['hermes', USER_PEER, 'chatgpt']);
    assert.equal(code, 200, JSON.stringify(body));
    assert.deepEqual(m.callsTo('POST', '/v3/workspaces').at(-1)!.body, { id: 'hermes' });
  } finally {
    await m.close();
  }
});

test('/readyz memory is not_configured without any Honcho configuration, and memory tools say so', async () => {
  const gw = await startTestGateway({ env: { HERMES_MCP_OPTIONAL_COMPONENTS: '' } });
  try {
    const { code, body } = await readyz(gw.url);
    assert.equal(code, 503);
    assert.equal(body.components.memory!.status, 'not_configured');
    assert.match(body.components.memory!.reason!, /no Honcho API key or base URL/);
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      assert.equal((await call(client, 'memory_context')).data.error, 'MEMORY_NOT_CONFIGURED');
      assert.equal((await viaBridge(client, 'memory_conclude', { action: 'list' })).data.error, 'MEMORY_NOT_CONFIGURED');
    } finally {
      await client.close();
    }
  } finally {
    await gw.close();
  }
});

test('/readyz memory is error when the Honcho stand-in is down, and tools answer MEMORY_UNAVAILABLE', async () => {
  const m = await startMemoryGateway();
  try {
    await m.standin.close();
    const { body } = await readyz(m.gw.url);
    assert.equal(body.components.memory!.ready, false);
    assert.equal(body.components.memory!.status, 'error');
    assert.match(body.components.memory!.reason!, /unreachable/);
    const client = await connect(m.gw.mcpUrl, 'legacy');
    try {
      const { data } = await call(client, 'memory_context');
      assert.equal(data.error, 'MEMORY_UNAVAILABLE', JSON.stringify(data));
      const write = await viaBridge(client, 'memory_conclude', { kind: 'preference', conclusion: 'Ada prefers tabs' });
      assert.equal(write.data.error, 'MEMORY_UNAVAILABLE', JSON.stringify(write.data));
      assert.equal(write.data.state, 'not_sent', 'the workspace/peer preparation failed before the write was sent');
    } finally {
      await client.close();
    }
  } finally {
    await m.close();
  }
});

test('/readyz memory is error for an unusable configuration (no user peer) and when Honcho refuses the key', async () => {
  const noPeer = await startMemoryGateway({ honcho: (url) => ({ baseUrl: url, hosts: { hermes: {} } }) });
  try {
    const memory = (await readyz(noPeer.gw.url)).body.components.memory!;
    assert.equal(memory.status, 'error');
    assert.match(memory.reason!, /no user peer/);
    assert.equal(noPeer.standin.calls.length, 0, 'an unusable configuration never reaches Honcho');
  } finally {
    await noPeer.close();
  }
  const wrongKey = await startMemoryGateway({ honcho: (url) => honchoJson(url, { apiKey: 'wrong-key' }) });
  try {
    wrongKey.standin.requireKey('right-key');
    const memory = (await readyz(wrongKey.gw.url)).body.components.memory!;
    assert.equal(memory.status, 'error');
    assert.match(memory.reason!, /refused the credentials \(HTTP 401\)/);
    assert.ok(!JSON.stringify(memory).includes('wrong-key'), 'the key never appears in /readyz');
  } finally {
    await wrongKey.close();
  }
});

test('identity: the host block (workspace, peer, key, base URL) wins over the environment', async () => {
  const m = await startMemoryGateway({
    honcho: (url) => ({ apiKey: 'root-key', baseUrl: url, hosts: { hermes: { apiKey: 'host-key', peerName: 'ada-host', workspace: 'hermes' } } }),
    // The environment points somewhere that is not listening; it must not be used.
    env: { HONCHO_BASE_URL: 'http://127.0.0.1:9', HONCHO_API_KEY: 'env-key' },
  });
  try {
    m.standin.requireKey('host-key');
    const client = await connect(m.gw.mcpUrl, 'modern');
    try {
      const { data, isError } = await viaBridge(client, 'memory_profile');
      assert.equal(isError, false, JSON.stringify(data));
      assert.equal(data.user_peer, 'ada-host');
    } finally {
      await client.close();
    }
    assert.deepEqual(m.callsTo('POST', '/v3/workspaces/hermes/peers').map((c) => (c.body as { id: string }).id).sort(), ['ada-host', 'chatgpt', 'hermes'], "the user, the gateway's assistant and Hermes' assistant (whose view of the user reads take)");
    assert.ok(m.standin.calls.every((c) => c.authorization === 'Bearer host-key'));
  } finally {
    await m.close();
  }
});

test('identity: honcho.json names the user peer while the environment supplies the base URL (loopback: placeholder key)', async () => {
  const m = await startMemoryGateway({
    honcho: { hosts: { hermes: { peerName: USER_PEER } } },
    env: (url) => ({ HONCHO_BASE_URL: `${url}/v3`, HONCHO_API_KEY: 'env-cloud-key' }),
  });
  try {
    const { body } = await readyz(m.gw.url);
    assert.equal(body.components.memory!.ready, true, JSON.stringify(body.components.memory));
    assert.equal(body.components.memory!.details!.api_key, 'placeholder');
    const client = await connect(m.gw.mcpUrl, 'legacy');
    try {
      const { data, isError } = await viaBridge(client, 'memory_profile');
      assert.equal(isError, false, JSON.stringify(data));
      assert.equal(data.user_peer, USER_PEER);
    } finally {
      await client.close();
    }
    assert.ok(m.standin.calls.length > 0);
    assert.ok(m.standin.calls.every((c) => c.authorization === 'Bearer local'), 'an environment key is not sent to a loopback Honcho');
  } finally {
    await m.close();
  }
});
