import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { processStartTime, WORKER_TAG_VAR } from '../../shared/proc.js';
import { startWorkerChild, type WorkerChild } from '../helpers/worker-child.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// The execute_code unit's command helper as its init starts it: fd 3, no 'ready', one result per
// exec; when the channel closes, what its commands left behind dies with it.

const entry = join(packageRoot(), 'dist', 'workers', 'execute-commands.js');
const temp = tempDirs();
const children: WorkerChild[] = [];
const leftovers: number[] = [];
after(() => {
  children.forEach((c) => c.stop());
  for (const pid of leftovers) if (processStartTime(pid) !== undefined) process.kill(pid, 'SIGKILL');
  temp.removeAll();
});

function start(): WorkerChild {
  const child = startWorkerChild([entry], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: temp.make('hmcp-cmds-home-'), [WORKER_TAG_VAR]: `cmds-${randomBytes(6).toString('hex')}` });
  children.push(child);
  return child;
}

const exec = (id: string, command: string, stateDir: string) => ({ type: 'exec', id, command, cwd: '/', timeoutMs: 10_000, stateDir, maxOutputBytes: 4096 });

test('each exec is answered with its id and the command\'s result; no ready is ever sent', async () => {
  const w = start();
  const state = temp.make('hmcp-cmds-state-');
  w.send(exec('a', 'echo one; cd /tmp', state));
  await w.next((f) => f.id === 'a', 'a');
  w.send(exec('b', 'exit 9', state));
  await w.next((f) => f.id === 'b', 'b');
  const byId = Object.fromEntries(w.frames.map((f) => [f.id, f]));
  assert.deepEqual(byId.a, { type: 'result', id: 'a', exitCode: 0, timedOut: false, output: 'one\n', outputBytes: 4, cwd: '/tmp' });
  assert.deepEqual(byId.b, { type: 'result', id: 'b', exitCode: 9, timedOut: false, output: '', outputBytes: 0, cwd: '/' });
  assert.equal(w.frames.length, 2);
});

test('when the channel closes, a setsid escapee of its commands is killed and the helper exits 0', async () => {
  const w = start();
  const state = temp.make('hmcp-cmds-state-');
  // The pid is written once setsid has run, so the command ends only after the escape.
  w.send({ ...exec('bg', "setsid sh -c 'echo $$ > esc.pid; exec sleep 30' >/dev/null 2>&1 < /dev/null & while [ ! -s esc.pid ]; do sleep 0.02; done; cat esc.pid", state), cwd: state });
  const pid = Number(String((await w.next((f) => f.id === 'bg', 'bg')).output).trim());
  leftovers.push(pid);
  assert.notEqual(processStartTime(pid), undefined, 'the escapee outlived its command\'s process group');
  (w.child.stdio[3] as Duplex).destroy();
  assert.deepEqual(await w.exited, { code: 0, signal: null });
  await waitFor(() => processStartTime(pid) === undefined, 5000, 'the escapee to be killed');
});
