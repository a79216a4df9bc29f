import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { test } from 'node:test';
import { loadLimits } from '../../../shared/limits.js';
import { connect, sessionToken, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { waitFor, within } from '../../helpers/wait.js';

// The listener keeps idle connections longer than the forwarders in front of it do (cloudflared and
// Go's http.Transport 90 s, nginx 60 s), so a forwarder never reuses a connection the gateway is
// closing; its timeouts are named limits; and a drain still closes idle connections at once while a
// call in flight answers. listenerTimeouts itself: keep-alive.test.ts.

/** A raw keep-alive connection that has had one GET answered and is now idle. */
async function idleConnection(port: number): Promise<{ socket: Socket; head: string; closed: Promise<number> }> {
  const socket = netConnect(port, '127.0.0.1');
  let text = '';
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  // /healthz answers JSON with a Content-Length: the whole answer is in once its body is.
  await waitFor(() => /\r\n\r\n\{.*\}$/s.test(text), 5000, 'the /healthz answer');
  return { socket, head: text.split('\r\n\r\n')[0]!, closed };
}

test('the defaults are above the forwarders\' idle timeouts, applied to the listener and announced', async () => {
  const limits = loadLimits({});
  assert.ok(limits.httpKeepAliveTimeoutSeconds > 90, 'longer than cloudflared and Go http.Transport (90 s)');
  assert.ok(limits.httpKeepAliveTimeoutSeconds < limits.httpHeadersTimeoutSeconds && limits.httpHeadersTimeoutSeconds <= limits.httpRequestTimeoutSeconds);
  const gw = await startTestGateway();
  try {
    assert.equal(gw.httpServer.keepAliveTimeout, limits.httpKeepAliveTimeoutSeconds * 1000);
    assert.equal(gw.httpServer.headersTimeout, limits.httpHeadersTimeoutSeconds * 1000);
    assert.equal(gw.httpServer.requestTimeout, limits.httpRequestTimeoutSeconds * 1000);
    const { socket, head } = await idleConnection(gw.port);
    assert.match(head, new RegExp(`\r\nKeep-Alive: timeout=${limits.httpKeepAliveTimeoutSeconds}\r\n`, 'i'));
    socket.destroy();
  } finally {
    await gw.close();
  }
});

test('HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS sets how long an idle connection stays open', async () => {
  // One second: the connection must close well before Node's own 5 s default would close it, and
  // not before the second is up (Node 24 adds up to a second of its own, keepAliveTimeoutBuffer).
  const gw = await startTestGateway({ env: { HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '1', HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS: '2' } });
  try {
    const { head, closed } = await idleConnection(gw.port);
    const idleSince = performance.now();
    assert.match(head, /\r\nKeep-Alive: timeout=1\r\n/i);
    const closedAt = await within(closed, 4500, 'the server to close the idle connection');
    const idleMs = closedAt - idleSince;
    assert.ok(idleMs >= 900 && idleMs < 4500, `closed after ${Math.round(idleMs)} ms idle`);
  } finally {
    await gw.close();
  }
});

test('draining: an answer on an idle keep-alive connection closes it, the call in flight still answers, and stopping closes the rest at once', async () => {
  const gw: TestGateway = await startTestGateway();
  const client = await connect(gw.mcpUrl, 'modern');
  let stopped = false;
  try {
    const token = await sessionToken(client);
    const inFlight = viaBridge(client, 'terminal', { command: 'sleep 2; echo done' }, token);
    await waitFor(() => gw.gateway.owners.inflightNativeCalls >= 1, 10_000, 'the terminal call to be running');
    const reused = await idleConnection(gw.port);
    const untouched = await idleConnection(gw.port);
    const drained = gw.drain(15_000);
    // A forwarder reusing its idle connection gets an answer saying so, then the connection ends
    // (not a reset, and not a connection kept for the keep-alive's 120 s).
    let text = '';
    reused.socket.on('data', (chunk: string) => (text += chunk));
    reused.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await within(reused.closed, 2000, 'the server to close the connection after its answer');
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /\r\nConnection: close\r\n/i);
    assert.ok(gw.gateway.owners.inflightNativeCalls >= 1, 'while the call was still running');
    const answer = await within(inFlight, 15_000, 'the in-flight call to answer');
    assert.equal(answer.isError, false, JSON.stringify(answer.data));
    assert.match(answer.data.output as string, /done/);
    assert.equal((await drained).drained, true);
    await client.close().catch(() => {});
    const closing = gw.close();
    stopped = true;
    await within(untouched.closed, 2000, 'stopping to close the idle connection at once');
    await within(closing, 15_000, 'the gateway to close');
  } finally {
    await client.close().catch(() => {});
    if (!stopped) await gw.close();
  }
});
