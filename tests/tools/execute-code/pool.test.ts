import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { descendantsOf } from '../../../shared/proc.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { ExecuteCodePool } from '../../../supervisor/tools/execute-code/index.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { isNamespaceInit } from '../../helpers/escapees.js';
import { tempDirs } from '../../helpers/temp.js';
import { within } from '../../helpers/wait.js';
import { cmdline, parentOf } from '../../helpers/procfs.js';

// The execute_code pool on its own (real runtime, real units, real Python): as many prepared units
// as may run at once, a replacement started the moment a call takes one (not after the call), a
// fresh unit and RPC token for every call, never more prepared units than the concurrency limit,
// and none left once the pool closes.

const temp = tempDirs();
after(() => temp.removeAll());

function ctx(): CallContext {
  return { owner: { id: `request:${randomUUID()}`, kind: 'request' }, signal: new AbortController().signal, callId: randomUUID(), era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };
}



/**
 * One pid per execute_code unit this process has alive: with PID namespaces the unit's init (PID 1
 * of its own namespace, whether spawned or forked by the unit zygote, which is no unit itself),
 * without them the outermost process of its command line.
 */
function units(): number[] {
  const workers = descendantsOf(process.pid).filter((pid) => cmdline(pid).includes('/workers/'));
  if (runtime.isolation.mode === 'pid-namespace') return workers.filter(isNamespaceInit);
  return workers.filter((pid) => !cmdline(parentOf(pid)).includes('/workers/'));
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let runtime: WorkerRuntime;

describe('execute_code unit pool', () => {
  let pool: ExecuteCodePool;
  let home: string;
  let concurrency: number;
  before(() => {
    home = temp.make('hmcp-pool-home-');
    runtime = createWorkerRuntime(loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.state'), HERMES_MCP_TERMINAL_CWD: home }), process.env);
    concurrency = runtime.config.limits.executeCodeConcurrency;
    pool = new ExecuteCodePool(runtime, async () => ({ error: 'no tools in this test' }));
    pool.prewarm();
  });
  after(async () => {
    await pool.close();
  });

  test('as many units as may run at once are prepared, and no more', async () => {
    await until(`${concurrency} prepared units`, () => units().length === concurrency);
    pool.prewarm(); // asking again adds nothing
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(units().length, concurrency);
  });

  test('a replacement is being prepared while the call that took a unit is still running', async () => {
    await until('a prepared unit', () => units().length >= 1);
    const started = join(home, 'started');
    const go = join(home, 'go');
    const code = `import os, time\nopen(${JSON.stringify(started)}, "w").close()\nwhile not os.path.exists(${JSON.stringify(go)}):\n    time.sleep(0.01)\nprint("released")`;
    const call = pool.run(code, ctx(), home);
    try {
      await until('the script to start', () => existsSync(started));
      // The running unit plus a full set of prepared ones, before the script has finished.
      await until(`${concurrency + 1} units while the call runs`, () => units().length === concurrency + 1);
      assert.equal(existsSync(go), false, 'the call is still running');
    } finally {
      writeFileSync(go, '');
    }
    const r = await within(call, 10_000, 'the call');
    assert.equal(r.status, 'success', JSON.stringify(r));
    assert.equal(r.output, 'released\n');
    // Its unit is torn down; the prepared ones stay, no more.
    await until(`back to ${concurrency} prepared units`, () => units().length === concurrency);
  });

  test('every call runs in a fresh unit with a fresh RPC token, however quickly calls follow', async () => {
    // A reused interpreter would still carry the mark the previous script left on it.
    const probe = 'import builtins, os\nprint(hasattr(builtins, "_hmcp_used"), os.environ["HERMES_RPC_TOKEN"], os.environ["HERMES_RPC_SOCKET"])\nbuiltins._hmcp_used = True';
    const seen: string[][] = [];
    for (let i = 0; i < 5; i++) {
      const r = await pool.run(probe, ctx(), home);
      assert.equal(r.status, 'success', JSON.stringify(r));
      seen.push(r.output.trim().split(' '));
    }
    seen.push(...(await Promise.all([0, 1].map(() => pool.run(probe, ctx(), home)))).map((r) => r.output.trim().split(' ')));
    assert.deepEqual(seen.map((s) => s[0]), seen.map(() => 'False'), 'no interpreter ran two scripts');
    const distinct = (i: number) => new Set(seen.map((s) => s[i])).size;
    assert.equal(distinct(1), seen.length, 'one token per call');
    assert.equal(distinct(2), seen.length, 'one socket per call');
    await until(`${concurrency} prepared units after the burst`, () => units().length === concurrency);
  });

  test('closing the pool leaves no unit behind', async () => {
    await until(`${concurrency} prepared units`, () => units().length === concurrency);
    await pool.close();
    await until('no unit left', () => units().length === 0, 3000);
    // Nor the unit zygote, nor anything else of the pool's.
    await until('no worker process left', () => descendantsOf(process.pid).every((pid) => !cmdline(pid).includes('/workers/')), 3000);
    pool.prewarm(); // a closed pool prepares nothing
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(units(), []);
  });
});
