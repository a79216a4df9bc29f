import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { zombieChildrenOf } from '../../shared/proc.js';
import { within } from './wait.js';

// Orphans re-parented to this test process (made a child subreaper first), dying as its zombies.

/** A child of `sh` (spawned here) that outlives it, so it is re-parented to this process. */
export async function adoptedOrphan(): Promise<number> {
  const sh = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exit 3'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  sh.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await within(new Promise((resolve) => sh.once('exit', resolve)), 5000, 'sh to exit');
  assert.equal(code, 3, 'libuv reaped its own child with its real status');
  return Number(out.trim());
}

export async function untilZombie(pid: number): Promise<void> {
  const end = Date.now() + 5000;
  while (!zombieChildrenOf(process.pid).some((z) => z.pid === pid)) {
    if (Date.now() > end) throw new Error(`pid ${pid} never became a zombie child of this process`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
