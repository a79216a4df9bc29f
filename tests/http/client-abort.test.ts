import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { launchGateway } from '../../bench/launch.js';
import { tempDirs } from '../helpers/temp.js';
import { within } from '../helpers/wait.js';
import { optionalComponents } from '../helpers/gateway.js';

// A client that goes away mid-body (a Content-Length longer than what it sent, broken or cut-off
// chunked encoding) is the client's doing: one request event each, category client_aborted, never
// an http_500 and never a stack trace on stderr. The gateway bin runs as its own process so its
// whole stderr can be read.

const dirs = tempDirs();
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  dirs.removeAll();
});

const HEAD = 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n';

/** Sends `text` on a raw socket, then destroys it once the gateway has had time to start reading. */
function sendAndVanish(port: number, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1', () => {
      socket.write(text);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 150);
    });
    socket.on('error', reject);
  });
}

test('cut-off request bodies are logged once each as client_aborted: no http_500, no stack trace', async () => {
  const home = dirs.make('hmcp-abort-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const { child, port } = await launchGateway(home, { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));

  // Declares 100 bytes, sends 10, closes.
  await sendAndVanish(port, `${HEAD}Content-Length: 100\r\n\r\n{"jsonrpc"`);
  // A chunk size that is not hex: Node's parser rejects the framing.
  await sendAndVanish(port, `${HEAD}Transfer-Encoding: chunked\r\n\r\n5\r\n{"jso\r\nzz\r\nxx`);
  // A chunked body cut off before its last chunk.
  await sendAndVanish(port, `${HEAD}Transfer-Encoding: chunked\r\n\r\n5\r\n{"jso\r\n`);
  // And the gateway still serves a well-formed request afterwards.
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);

  // The log is buffered: SIGTERM flushes it.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await within(exited, 30_000, 'the gateway to exit');

  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const notJson = lines.filter((l) => {
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
  assert.deepEqual(notJson, [], 'every stderr line is a JSON log event (no stack trace)');
  const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const posts = events.filter((e) => e.event === 'request' && e.http_method === 'POST');
  assert.deepEqual(
    posts.map((e) => e.category),
    ['client_aborted', 'client_aborted', 'client_aborted'],
    JSON.stringify(posts),
  );
  assert.ok(!events.some((e) => e.status === 500 || e.category === 'http_500'), 'nothing is logged as a server error');
  assert.ok(!events.some((e) => typeof e.err === 'string' || e.level === 50), 'no error event');
});
