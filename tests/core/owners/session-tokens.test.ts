import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fixtureSource, type FixtureProbe } from '../../helpers/fixtures.js';
import { testClock } from '../../helpers/clock.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait.js';

describe('capability sessions (session_open / session_close)', () => {
  let gw: TestGateway;
  let probe: FixtureProbe;
  const clock = testClock();
  const released: string[] = [];
  before(async () => {
    const fixture = fixtureSource();
    probe = fixture.probe;
    gw = await startTestGateway({ adapters: [{ name: 'fixture', source: fixture.source }], now: clock.now, limits: { maxSessionTokens: 5 } });
    gw.gateway.owners.registerReleaseHook('test', (owner) => {
      released.push(owner);
    });
  });
  after(async () => gw.close());

  async function open(client: Awaited<ReturnType<typeof connect>>) {
    const { data, isError } = await viaBridge(client, 'session_open');
    assert.equal(isError, false, JSON.stringify(data));
    return data.session_token as string;
  }

  test('a token is random, long, and makes its holder a stable owner across requests', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const token = await open(client);
      assert.match(token, /^hmcp_[A-Za-z0-9_-]{32}$/);
      const a = await viaBridge(client, 'fixture_whoami', {}, token);
      const b = await viaBridge(client, 'fixture_whoami', {}, token);
      assert.equal(a.data.kind, 'capability');
      assert.equal(a.data.owner, b.data.owner);
      assert.ok(!String(a.data.owner).includes(token.slice(5, 15)), 'owner id is not derived from the token');
      await viaBridge(client, 'session_close', {}, token);
    } finally {
      await client.close();
    }
  });

  test('sessionless calls without a token get a fresh owner each request and cannot use owner-bound tools', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const denied = await viaBridge(client, 'fixture_bound');
      assert.equal(denied.data.error, 'OWNER_REQUIRED');
      const a = await viaBridge(client, 'fixture_whoami');
      const b = await viaBridge(client, 'fixture_whoami');
      assert.equal(a.data.kind, 'request');
      assert.notEqual(a.data.owner, b.data.owner);
    } finally {
      await client.close();
    }
  });

  test('a legacy session is itself an owner, stable across its requests and distinct from other sessions', async () => {
    const c1 = await connect(gw.mcpUrl, 'legacy');
    const c2 = await connect(gw.mcpUrl, 'legacy');
    try {
      const a = await viaBridge(c1, 'fixture_whoami');
      const b = await viaBridge(c1, 'fixture_whoami');
      const c = await viaBridge(c2, 'fixture_whoami');
      assert.equal(a.data.kind, 'legacy');
      assert.equal(a.data.owner, b.data.owner);
      assert.notEqual(a.data.owner, c.data.owner);
    } finally {
      await c1.close();
      await c2.close();
    }
  });

  test('a forged token is refused before anything runs', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const calls = probe.owners.length;
      const { data } = await viaBridge(client, 'fixture_bound', {}, 'hmcp_' + 'A'.repeat(32));
      assert.equal(data.error, 'SESSION_TOKEN_INVALID');
      assert.equal(probe.owners.length, calls, 'the tool did not run');
    } finally {
      await client.close();
    }
  });

  test('a token opened in one legacy session is refused in another', async () => {
    const c1 = await connect(gw.mcpUrl, 'legacy');
    const c2 = await connect(gw.mcpUrl, 'legacy');
    try {
      const token = await open(c1);
      assert.equal((await viaBridge(c1, 'fixture_whoami', {}, token)).data.kind, 'capability');
      const foreign = await viaBridge(c2, 'fixture_bound', {}, token);
      assert.equal(foreign.data.error, 'SESSION_TOKEN_FOREIGN');
      await viaBridge(c1, 'session_close', {}, token);
    } finally {
      await c1.close();
      await c2.close();
    }
  });

  test('session_close revokes the token and releases only that owner', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const mine = await open(client);
      const other = await open(client);
      const owner = (await viaBridge(client, 'fixture_whoami', {}, mine)).data.owner as string;
      const otherOwner = (await viaBridge(client, 'fixture_whoami', {}, other)).data.owner as string;
      released.length = 0;
      const closed = await viaBridge(client, 'session_close', {}, mine);
      assert.deepEqual(closed.data, { closed: true, pending_native_calls: 0, released: 'done' });
      assert.deepEqual(released, [owner]);
      assert.ok(!released.includes(otherOwner));
      const after = await viaBridge(client, 'fixture_whoami', {}, mine);
      assert.equal(after.data.error, 'SESSION_TOKEN_REVOKED');
      assert.equal((await viaBridge(client, 'fixture_whoami', {}, other)).isError, false);
      const noToken = await viaBridge(client, 'session_close');
      assert.equal(noToken.data.error, 'OWNER_REQUIRED');
      await viaBridge(client, 'session_close', {}, other);
    } finally {
      await client.close();
    }
  });

  test('release waits until the owner’s running native work completes', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const token = await open(client);
      const owner = (await viaBridge(client, 'fixture_whoami', {}, token)).data.owner as string;
      released.length = 0;
      const holding = viaBridge(client, 'fixture_hold', {}, token);
      await waitFor(() => gw.gateway.owners.leaseCount(owner) > 0, 5000, 'the held call to take its lease', 5);
      const closed = await viaBridge(client, 'session_close', {}, token);
      assert.equal(closed.data.pending_native_calls, 1);
      assert.equal(closed.data.released, 'after_running_calls_finish');
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(released, [], 'nothing released while the work still runs');
      probe.releaseHolds();
      await holding;
      await waitFor(() => released.length > 0, 5000, 'the owner to be released once the work completed', 5);
      assert.deepEqual(released, [owner]);
    } finally {
      await client.close();
    }
  });

  test('tokens expire 15 minutes after opening (fixed, not extended by use) and are then released', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const token = await open(client);
      const owner = (await viaBridge(client, 'fixture_whoami', {}, token)).data.owner as string;
      clock.advance(14 * 60_000);
      assert.equal((await viaBridge(client, 'fixture_whoami', {}, token)).isError, false, 'still valid at 14 min');
      clock.advance(61_000);
      const expired = await viaBridge(client, 'fixture_whoami', {}, token);
      assert.equal(expired.data.error, 'SESSION_TOKEN_EXPIRED');
      released.length = 0;
      gw.gateway.sweepExpiredCapabilities();
      await waitFor(() => released.includes(owner), 5000, 'the expired owner to be released', 5);
    } finally {
      await client.close();
    }
  });

  test('the active-token cap is enforced (257th of 256; 6th of 5 here) and frees up on close', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      const tokens: string[] = [];
      while (gw.gateway.capabilities.activeCount() < 5) tokens.push(await open(client));
      const over = await viaBridge(client, 'session_open');
      assert.equal(over.data.error, 'SESSION_LIMIT_REACHED');
      assert.match(String(over.data.message), /at most 5/);
      await viaBridge(client, 'session_close', {}, tokens.pop());
      tokens.push(await open(client));
      for (const t of tokens) await viaBridge(client, 'session_close', {}, t);
    } finally {
      await client.close();
    }
  });
});

describe('capability cap default', () => {
  test('the default cap is 256 active tokens', async () => {
    const gw = await startTestGateway();
    try {
      for (let i = 0; i < 256; i++) gw.gateway.capabilities.open();
      assert.throws(() => gw.gateway.capabilities.open(), /at most 256/);
    } finally {
      await gw.close();
    }
  });
});
