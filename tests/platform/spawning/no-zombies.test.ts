import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { launchGateway } from '../../../bench/launch.js';
import { zombieChildrenOf } from '../../../shared/proc.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { within } from '../../helpers/wait.js';

// The gateway bin as its own process (so its children are its own, not the test runner's): worker
// teardown after execute_code calls, terminal calls and session closes leaves no zombie child of
// the gateway, and /healthz reports the count. A zombie pins a pid each; they once piled up one per
// call until the unit's TasksMax stopped every spawn.

const dirs = tempDirs();
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  dirs.removeAll();
});

async function start(env: NodeJS.ProcessEnv) {
  const home = dirs.make('hmcp-zombies-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  const { child, port } = await launchGateway(home, { HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), ...env });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  return { child, pid: child.pid!, base, client: await connect(`${base}/mcp`, 'modern') };
}

async function healthz(base: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${base}/healthz`)).json()) as Record<string, unknown>;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await within(exited, 30_000, 'the gateway to exit');
}

/** execute_code calls, with a session of terminal calls closed after every tenth. */
async function workload(client: Awaited<ReturnType<typeof start>>['client'], calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const r = await viaBridge(client, 'execute_code', { code: `print(${i})` });
    assert.equal(r.data.status, 'success', JSON.stringify(r.data));
    if (i % 10 === 9) {
      const token = await sessionToken(client);
      for (const command of ['echo one', '(sleep 0.05 &); echo two']) {
        const t = await viaBridge(client, 'terminal', { command }, token);
        assert.equal(t.data.exit_code, 0, JSON.stringify(t.data));
      }
      assert.equal((await viaBridge(client, 'session_close', {}, token)).isError, false);
    }
  }
}

/** Waits (bounded) until the gateway has no zombie child; returns the ones left. */
async function zombiesAfterSettling(pid: number, ms: number): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const left = zombieChildrenOf(pid).map((z) => z.pid);
    if (left.length === 0 || Date.now() > end) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('50 execute_code calls, terminal calls and session closes leave no zombie child of the gateway; /healthz says 0', async () => {
  const gw = await start({ HERMES_MCP_ORPHAN_REAP_INTERVAL_SECONDS: '1' });
  await workload(gw.client, 50);
  // Teardown finishes just after the last answer, and an adopted orphan is reaped on the sweep's
  // second look: a few seconds at most.
  assert.deepEqual(await zombiesAfterSettling(gw.pid, 5000), [], 'zombie children of the gateway');
  const health = await healthz(gw.base);
  assert.equal(health.zombie_children, 0, JSON.stringify(health));
  await gw.client.close();
  await stop(gw.child);
});

test('in pid-namespace mode worker teardown makes no zombie at all (no sweep needed)', async (t) => {
  // The sweep effectively off: every zombie left would be the teardown's own doing.
  const gw = await start({ HERMES_MCP_ORPHAN_REAP_INTERVAL_SECONDS: '3600' });
  try {
    if ((await healthz(gw.base)).isolation !== 'pid-namespace') {
      t.skip('this host has no PID namespaces for workers');
      return;
    }
    await workload(gw.client, 10);
    assert.deepEqual(await zombiesAfterSettling(gw.pid, 3000), [], 'zombie children of the gateway');
    const health = await healthz(gw.base);
    assert.equal(health.zombie_children, 0, JSON.stringify(health));
    assert.equal(health.orphans_reaped, 0, 'nothing was left for the sweep');
  } finally {
    await gw.client.close();
    await stop(gw.child);
  }
});
