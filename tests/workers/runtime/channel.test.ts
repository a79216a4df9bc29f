import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { FRAME_CAP_VAR } from '../../../shared/worker-protocol/caps.js';
import { inlineModule, startWorkerChild, type WorkerChild } from '../../helpers/worker-child.js';

// The worker's end of the fd-3 channel, in a real child speaking the terminal protocol: it echoes
// each exec's command back, answers 'shutdown' with what it saw of the frame-cap variable and exits
// once that answer is flushed, and on close says so and exits 3.

const dist = join(packageRoot(), 'dist');
const children: WorkerChild[] = [];
after(() => children.forEach((c) => c.stop()));

const BODY = `
const channel = openSupervisorChannel(terminalProtocol, (m) => {
  if (m.type === 'exec') {
    try {
      channel.send({ type: 'result', id: m.id, exitCode: 0, timedOut: false, output: m.command === 'big' ? 'x'.repeat(5000) : m.command, outputBytes: 0 });
    } catch (e) {
      channel.send({ type: 'result', id: m.id, error: e.name + ': ' + e.message });
    }
  } else {
    channel.send({ type: 'result', id: 'bye', error: 'cap variable: ' + String(process.env.${FRAME_CAP_VAR}) });
    channel.flushed(2000).then(() => process.exit(7));
  }
}, () => { process.stdout.write('closed\\n'); process.exit(3); });
`;

function start(): WorkerChild {
  const args = inlineModule(
    { openSupervisorChannel: join(dist, 'workers', 'runtime', 'channel.js'), terminalProtocol: join(dist, 'shared', 'worker-protocol', 'terminal.js') },
    BODY,
  );
  const child = startWorkerChild(args, { PATH: process.env.PATH ?? '/usr/bin:/bin', [FRAME_CAP_VAR]: '1024' });
  children.push(child);
  return child;
}

const exec = (id: string, command: string) => ({ type: 'exec', id, command, cwd: '/', timeoutMs: 1000, stateDir: '/nonexistent', maxOutputBytes: 64 });

test('messages arrive decoded in order, replies go back, and flushed() lets the last frame out before exit', async () => {
  const w = start();
  w.send(exec('1', 'first'));
  w.send(exec('2', 'second'));
  w.send({ type: 'shutdown' });
  assert.deepEqual(await w.exited, { code: 7, signal: null });
  assert.deepEqual(
    w.frames.map((f) => [f.id, f.output ?? f.error]),
    [
      ['1', 'first'],
      ['2', 'second'],
      ['bye', 'cap variable: undefined'],
    ],
    'the cap variable is taken out of the worker\'s environment',
  );
  assert.equal(w.stderr(), '');
});

test('a frame over the handed cap is refused on the worker\'s side too (send throws FrameError)', async () => {
  const w = start();
  w.send(exec('big', 'big'));
  const reply = await w.next((f) => f.id === 'big', 'the refusal');
  assert.match(String(reply.error), /^FrameError: frame of \d+ bytes exceeds the 1024-byte cap$/);
  w.send({ type: 'shutdown' });
  assert.equal((await w.exited).code, 7);
});

test('a message type the kind is never sent closes the channel once: the close handler runs', async () => {
  const w = start();
  w.send({ type: 'ready' });
  assert.deepEqual(await w.exited, { code: 3, signal: null });
  assert.equal(w.stderr(), 'worker: incoming frame has unknown type "ready"; closing\n');
  assert.equal(w.stdout(), 'closed\n');
  assert.deepEqual(w.frames, []);
});

test('an incoming frame over the cap, or malformed JSON, closes it the same way', async () => {
  const big = start();
  big.send(exec('x', 'y'.repeat(2000)));
  assert.equal((await big.exited).code, 3);
  assert.match(big.stderr(), /^worker: incoming frame announces \d+ bytes, over the 1024-byte cap; closing\n$/);

  const garbage = start();
  const body = Buffer.from('{not json');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  (garbage.child.stdio[3] as Duplex).write(Buffer.concat([head, body]));
  assert.equal((await garbage.exited).code, 3);
  assert.equal(garbage.stderr(), 'worker: incoming frame is not valid JSON; closing\n');
});

test('the supervisor closing its end means it is gone: the close handler runs', async () => {
  const w = start();
  w.send(exec('1', 'alive'));
  await w.next((f) => f.id === '1', 'the echo');
  (w.child.stdio[3] as Duplex).destroy();
  assert.deepEqual(await w.exited, { code: 3, signal: null });
  assert.equal(w.stdout(), 'closed\n');
});
