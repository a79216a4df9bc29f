import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { serveConnection } from '../../../../supervisor/tools/execute-code/rpc/connection.js';
import { tempDirs } from '../../../helpers/temp.js';

// One script's RPC connection over a real Unix socket: lines served one at a time and in order,
// each response written back, and a line over the bound answered with one error and closed.

const temp = tempDirs();
const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
  temp.removeAll();
});

async function served(handle: (raw: Buffer) => Promise<string | null>, maxRequestBytes: number): Promise<Socket> {
  const path = join(temp.make('hmcp-rpc-conn-'), 'rpc.sock');
  const server = createServer((socket) => serveConnection(socket, handle, maxRequestBytes));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = connect(path);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  return client;
}

/** Everything the server writes until it closes the connection, or the first `lines` lines. */
function read(client: Socket, lines = Infinity): Promise<string[]> {
  let text = '';
  return new Promise((resolve) => {
    const done = () => resolve(text.split('\n').filter(Boolean));
    client.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.split('\n').length - 1 >= lines) done();
    });
    client.on('close', done);
  });
}

test('requests are served strictly one at a time, in order, split and joined across chunks', async () => {
  let running = 0;
  let most = 0;
  const seen: string[] = [];
  const client = await served(async (raw) => {
    running++;
    most = Math.max(most, running);
    seen.push(raw.toString());
    await new Promise((r) => setTimeout(r, raw.toString() === 'a' ? 50 : 5));
    running--;
    return raw.toString() === 'quiet' ? null : `re:${raw.toString()}`;
  }, 100);
  const answers = read(client, 3);
  client.write('a\nb');
  client.write('c\nquiet\n');
  await new Promise((r) => setTimeout(r, 20));
  client.write('d\n');
  assert.deepEqual(await answers, ['re:a', 're:bc', 're:d'], 'a null response writes nothing');
  assert.deepEqual(seen, ['a', 'bc', 'quiet', 'd']);
  assert.equal(most, 1);
  client.destroy();
});

test('a request line over the bound gets one error line and the connection is closed', async () => {
  const seen: string[] = [];
  const client = await served(async (raw) => {
    seen.push(raw.toString());
    return 'ok';
  }, 8);
  const answers = read(client);
  const first = read(client, 1);
  client.write('12345678\n');
  assert.deepEqual(await first, ['ok'], 'a line of exactly the bound is served');
  client.write('123456789\nnever\n');
  assert.deepEqual(await answers, ['ok', JSON.stringify({ error: 'Invalid RPC request: request line exceeds 8 bytes' })]);
  assert.deepEqual(seen, ['12345678'], 'nothing after the overflow is served');
});

test('lines already queued when a line overflows are dropped with it', async () => {
  const seen: string[] = [];
  const client = await served(async (raw) => {
    seen.push(raw.toString());
    return 'ok';
  }, 8);
  const answers = read(client);
  client.write('one\n123456789\n');
  assert.deepEqual(await answers, [JSON.stringify({ error: 'Invalid RPC request: request line exceeds 8 bytes' })]);
  assert.deepEqual(seen, []);
});

test('an unterminated line over the bound is refused too, without waiting for its newline', async () => {
  const client = await served(async () => 'ok', 8);
  const answers = read(client);
  client.write('12345');
  await new Promise((r) => setTimeout(r, 20));
  client.write('6789');
  assert.deepEqual(await answers, [JSON.stringify({ error: 'Invalid RPC request: request line exceeds 8 bytes' })]);
});
