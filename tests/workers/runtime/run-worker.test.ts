import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { subreaperAddon } from '../../../shared/subreaper.js';
import { inlineModule, startWorkerChild, type WorkerChild } from '../../helpers/worker-child.js';

// A worker entry's start in a real child: 'ready' first (when its protocol has one), then its
// handlers for messages, the lost supervisor and SIGTERM.

const dist = join(packageRoot(), 'dist');
const children: WorkerChild[] = [];
after(() => children.forEach((c) => c.stop()));

function start(protocolModule: string, protocolName: string, withTerminate: boolean): WorkerChild {
  const body = `
const channel = runWorker(${protocolName}, {
  message: (m) => {
    if (m.command === 'orphan') {
      // A grandchild orphaned at once: with the subreaper it is re-parented to this worker.
      const pid = Number(execSync('sleep 30 >/dev/null 2>&1 & echo $!', { encoding: 'utf8' }).trim());
      let ppid = 0;
      for (let i = 0; i < 100 && ppid !== process.pid; i++) ppid = Number(readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1]);
      process.kill(pid, 'SIGKILL');
      channel.send({ type: 'result', id: m.id, error: String(ppid === process.pid) });
    } else {
      channel.send({ type: 'result', id: m.id, error: 'got ' + m.type + ' ' + m.command });
    }
  },
  lost: () => { process.stdout.write('lost\\n'); process.exit(4); },
  ${withTerminate ? "terminate: () => { process.stdout.write('terminated\\n'); process.exit(5); }," : ''}
});
`;
  const args = inlineModule(
    {
      runWorker: join(dist, 'workers', 'runtime', 'run-worker.js'),
      [protocolName]: join(dist, 'shared', 'worker-protocol', protocolModule),
      execSync: 'node:child_process',
      readFileSync: 'node:fs',
    },
    body,
  );
  const child = startWorkerChild(args, { PATH: process.env.PATH ?? '/usr/bin:/bin' });
  children.push(child);
  return child;
}

const exec = (id: string, command: string) => ({ type: 'exec', id, command, cwd: '/', timeoutMs: 1000, stateDir: '/nonexistent', maxOutputBytes: 64 });

test('a worker whose protocol has ready announces it first, then hands each message to its handler', async () => {
  const w = start('terminal.js', 'terminalProtocol', true);
  await w.next((f) => f.type === 'ready', 'ready');
  w.send(exec('1', 'ls'));
  await w.next((f) => f.id === '1', 'the answer');
  assert.deepEqual(w.frames, [{ type: 'ready' }, { type: 'result', id: '1', error: 'got exec ls' }]);
});

test('SIGTERM runs the terminate handler; without one the signal keeps its default', async () => {
  const handled = start('terminal.js', 'terminalProtocol', true);
  await handled.next((f) => f.type === 'ready', 'ready');
  handled.child.kill('SIGTERM');
  assert.deepEqual(await handled.exited, { code: 5, signal: null });
  assert.equal(handled.stdout(), 'terminated\n');

  const plain = start('terminal.js', 'terminalProtocol', false);
  await plain.next((f) => f.type === 'ready', 'ready');
  plain.child.kill('SIGTERM');
  assert.deepEqual(await plain.exited, { code: null, signal: 'SIGTERM' });
  assert.equal(plain.stdout(), '');
});

test('the supervisor closing the channel runs lost', async () => {
  const w = start('terminal.js', 'terminalProtocol', true);
  await w.next((f) => f.type === 'ready', 'ready');
  (w.child.stdio[3] as Duplex).destroy();
  assert.deepEqual(await w.exited, { code: 4, signal: null });
  assert.equal(w.stdout(), 'lost\n');
});

test('a protocol without ready (the execute_code command helper\'s) sends nothing until asked', async () => {
  const w = start('execute.js', 'executeCommandsProtocol', false);
  w.send(exec('1', 'pwd'));
  await w.next((f) => f.id === '1', 'the answer');
  assert.deepEqual(w.frames, [{ type: 'result', id: '1', error: 'got exec pwd' }]);
});

test('the worker is a child subreaper: an orphan of its work is re-parented to it', { skip: subreaperAddon() === null ? 'no subreaper addon on this host' : false }, async () => {
  const w = start('terminal.js', 'terminalProtocol', true);
  w.send(exec('o', 'orphan'));
  assert.equal((await w.next((f) => f.id === 'o', 'the orphan\'s parent')).error, 'true');
});
