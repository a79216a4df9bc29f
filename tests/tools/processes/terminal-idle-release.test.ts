import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait.js';

// An owner's terminal worker (a bash in its own PID namespace) is released once the owner has been
// idle for ownerWorkerIdleSeconds, long before an abandoned legacy session itself expires
// (legacySessionIdleSeconds). The owner keeps its cwd and exports: the next command starts a fresh
// shell where the last one ended. /healthz shows live workers, owners and idle releases.

const IDLE_SECONDS = 1;

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_OWNER_WORKER_IDLE_SECONDS: String(IDLE_SECONDS) } });
});
after(async () => gw.close());

async function health(): Promise<Record<string, number>> {
  return (await (await fetch(`${gw.url}/healthz`)).json()) as Record<string, number>;
}

test('an idle legacy session’s terminal worker is released, its cwd and exports survive, /healthz counts it', async () => {
  const client = await connect(gw.mcpUrl, 'legacy');
  try {
    const before = await health();
    assert.equal(before.terminal_workers_idle_released, 0);
    const otherWorkers = new Set(gw.native.runtime.liveWorkerPids()); // e.g. prepared execute_code units
    const set = await viaBridge(client, 'terminal', { command: 'cd /tmp && export HMCP_IDLE=kept' });
    assert.equal(set.data.exit_code, 0, JSON.stringify(set.data));
    const workerPids = gw.native.runtime.liveWorkerPids().filter((pid) => !otherWorkers.has(pid));
    assert.equal(workerPids.length, 1, 'one terminal worker');
    assert.equal((await health()).terminal_workers, 1);

    const released = await waitFor(async () => {
      const h = await health();
      const gone = !gw.native.runtime.liveWorkerPids().includes(workerPids[0]!);
      return gone && h.terminal_workers === 0 && h.terminal_workers_idle_released === 1 ? h : undefined;
    }, IDLE_SECONDS * 1000 + 10_000, 'the idle worker to be released and gone');
    assert.equal(released.terminal_owners, 1, 'the owner’s terminal state is kept');
    assert.equal(released.legacy_sessions, 1, 'the session itself lives on');

    const again = await viaBridge(client, 'terminal', { command: 'pwd; echo "v=$HMCP_IDLE"' });
    assert.equal(again.data.output, '/tmp\nv=kept');
    const fresh = gw.native.runtime.liveWorkerPids().filter((pid) => !otherWorkers.has(pid));
    assert.equal(fresh.length, 1);
    assert.notEqual(fresh[0], workerPids[0], 'a fresh worker ran it');
    assert.equal((await health()).terminal_workers, 1);
  } finally {
    await client.close();
  }
});

test('a command running longer than the idle limit is never released under it', async () => {
  const client = await connect(gw.mcpUrl, 'legacy');
  try {
    const otherWorkers = new Set(gw.native.runtime.liveWorkerPids());
    await viaBridge(client, 'terminal', { command: 'true' });
    const mine = gw.native.runtime.liveWorkerPids().filter((pid) => !otherWorkers.has(pid));
    assert.equal(mine.length, 1);
    const r = await viaBridge(client, 'terminal', { command: `sleep ${IDLE_SECONDS + 0.5}; echo done` });
    assert.deepEqual(r.data, { output: 'done', exit_code: 0, error: null });
    assert.ok(gw.native.runtime.liveWorkerPids().includes(mine[0]!), 'the same worker ran it and is still alive');
  } finally {
    await client.close();
  }
});
