import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { loadLimits } from '../../../shared/limits.js';
import { listenerTimeouts } from '../../../supervisor/http/edge/keep-alive.js';
import { waitFor } from '../../helpers/wait.js';

// listenerTimeouts: the named limits in seconds as a Node listener's options in milliseconds, above
// the forwarders' idle timeouts (cloudflared and Go's http.Transport 90 s, nginx 60 s). The
// gateway's own listeners with them: keep-alive-gateway.test.ts.

test('the limits become the listener options, in milliseconds', () => {
  const limits = loadLimits({ HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '7', HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS: '8', HERMES_MCP_HTTP_REQUEST_TIMEOUT_SECONDS: '9' });
  assert.deepEqual(listenerTimeouts(limits), { keepAliveTimeout: 7000, headersTimeout: 8000, requestTimeout: 9000 });
});

test("the defaults keep an idle connection longer than the forwarders do, and stay ordered", () => {
  const options = listenerTimeouts(loadLimits({}));
  assert.ok(options.keepAliveTimeout! > 90_000, `${options.keepAliveTimeout} ms: longer than cloudflared and Go http.Transport (90 s)`);
  assert.ok(options.keepAliveTimeout! < options.headersTimeout! && options.headersTimeout! <= options.requestTimeout!);
});

test('the keep-alive must stay below the headers timeout, and that at most the request timeout', () => {
  assert.throws(() => loadLimits({ HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '130' }), /HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS \(130\) must be less than HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS/);
  assert.throws(() => loadLimits({ HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS: '301' }), /HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS \(301\) must not exceed HERMES_MCP_HTTP_REQUEST_TIMEOUT_SECONDS/);
});

test('a loopback listener with these options announces the keep-alive and closes an idle connection after it', async () => {
  const server = createServer(listenerTimeouts(loadLimits({ HERMES_MCP_HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '1', HERMES_MCP_HTTP_HEADERS_TIMEOUT_SECONDS: '2' })), (_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = netConnect((server.address() as AddressInfo).port, '127.0.0.1');
    let text = '';
    let closedAt = 0;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => {});
    socket.once('close', () => (closedAt = performance.now()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    await waitFor(() => text.endsWith('\r\n\r\nok'), 5000, 'the answer');
    const idleSince = performance.now();
    assert.match(text, /\r\nKeep-Alive: timeout=1\r\n/i);
    await waitFor(() => closedAt > 0, 4500, 'the idle connection to be closed');
    const idleMs = closedAt - idleSince;
    // Node 24 adds up to a second of its own (keepAliveTimeoutBuffer); its default would be 5 s.
    assert.ok(idleMs >= 900 && idleMs < 4500, `closed after ${Math.round(idleMs)} ms idle`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
