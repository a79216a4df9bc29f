import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, GatewayError, isGatewayError } from '../../../shared/errors.js';
import { errorCodeOf, formatSeconds, hermesRequest, keyRejectedMessage, notServedMessage, upstreamError, type Answer } from '../../../supervisor/tools/agent-tasks/hermes-http.js';

// One request to a Hermes API server (hermes-http.ts), against a real loopback HTTP server, and
// what its failures mean.

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({ status, body, headers: new Headers(headers) });

describe('hermesRequest', () => {
  let server: Server;
  let base = '';
  const seen: { method?: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/json': (res) => res.writeHead(201, { 'content-type': 'application/json', 'x-hermes-session-id': 's2' }).end('{"ok": true}'),
    '/empty': (res) => res.writeHead(204).end(),
    '/text': (res) => res.writeHead(502).end('Bad gateway ' + 'x'.repeat(300)),
    '/big': (res) => res.writeHead(200).end('x'.repeat(2000)),
    '/redirect': (res) => res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end(),
    '/reset': (res) => res.socket?.destroy(),
    '/slow': () => {},
  };

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        routes[req.url ?? '']?.(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const target = () => ({ baseUrl: base, key: 'secret-key', maxBytes: 1000 });
  const request = (path: string, extra: { body?: unknown; signal?: AbortSignal; method?: string } = {}) => ({
    method: extra.method ?? 'GET',
    url: base + path,
    signal: extra.signal ?? AbortSignal.timeout(10_000),
    headers: { 'x-extra': 'yes' },
    ...(extra.body !== undefined ? { body: extra.body } : {}),
  });

  test("the agent's key, JSON in and out, the caller's headers; status, parsed body and headers returned", async () => {
    const a = await hermesRequest(target(), request('/json', { method: 'POST', body: { input: 'hi' } }));
    assert.equal(a.status, 201);
    assert.deepEqual(a.body, { ok: true });
    assert.equal(a.headers.get('x-hermes-session-id'), 's2');
    const last = seen.at(-1)!;
    assert.equal(last.method, 'POST');
    assert.equal(last.headers.authorization, 'Bearer secret-key');
    assert.equal(last.headers['content-type'], 'application/json');
    assert.equal(last.headers.accept, 'application/json');
    assert.equal(last.headers['x-extra'], 'yes');
    assert.equal(last.body, '{"input":"hi"}');
  });

  test('no body sent: no content type; an empty answer is null; a text answer becomes an error message of 200 characters', async () => {
    const empty = await hermesRequest(target(), request('/empty'));
    assert.deepEqual([empty.status, empty.body], [204, null]);
    assert.equal(seen.at(-1)!.headers['content-type'], undefined);
    const text = await hermesRequest(target(), request('/text'));
    assert.equal(text.status, 502);
    assert.deepEqual(text.body, { error: { message: ('Bad gateway ' + 'x'.repeat(300)).slice(0, 200) } });
  });

  test('an answer over maxBytes is UPSTREAM_FAILED', async () => {
    await assert.rejects(hermesRequest(target(), request('/big')), (e) => isGatewayError(e) && e.code === ErrorCode.UPSTREAM_FAILED && e.message === 'the Hermes API answer exceeds 1000 bytes');
  });

  test('a redirect is not followed: the outcome is unknown (UPSTREAM_FAILED)', async () => {
    await assert.rejects(hermesRequest(target(), request('/redirect')), (e) => isGatewayError(e) && e.code === ErrorCode.UPSTREAM_FAILED && e.details?.outcome === 'unknown');
  });

  test('a connection closed after the request went out: UPSTREAM_FAILED, the agent may have it', async () => {
    await assert.rejects(hermesRequest(target(), request('/reset', { method: 'POST', body: {} })), (e) => isGatewayError(e) && e.code === ErrorCode.UPSTREAM_FAILED && e.details?.outcome === 'unknown' && /may have received the request/.test(e.message));
  });

  test('a refused connection proves nothing was sent: AGENT_UNAVAILABLE, unreachable', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = `http://127.0.0.1:${port}`;
    await assert.rejects(
      hermesRequest({ baseUrl: closed, key: 'k', maxBytes: 10 }, { method: 'GET', url: `${closed}/v1/models`, signal: AbortSignal.timeout(10_000), headers: {} }),
      (e) => isGatewayError(e) && e.code === ErrorCode.AGENT_UNAVAILABLE && e.details?.unavailable_reason === 'unreachable' && e.message === `the Hermes API at ${closed} is unreachable: ECONNREFUSED`,
    );
  });

  test("an aborted request: the deadline's own error when the signal carries one, else CANCELLED", async () => {
    const deadline = new AbortController();
    const timeout = new GatewayError(ErrorCode.TASK_TIMEOUT, 'the task ran out of time');
    const pending = hermesRequest(target(), request('/slow', { signal: deadline.signal }));
    setTimeout(() => deadline.abort(timeout), 50);
    await assert.rejects(pending, (e) => e === timeout);

    const cancel = new AbortController();
    const cancelled = hermesRequest(target(), request('/slow', { signal: cancel.signal }));
    setTimeout(() => cancel.abort(), 50);
    await assert.rejects(cancelled, (e) => isGatewayError(e) && e.code === ErrorCode.CANCELLED);
  });
});

test("errorCodeOf: the OpenAI-style body's error.code, if a string", () => {
  assert.equal(errorCodeOf(answer(400, { error: { code: 'session_busy', message: 'm' } })), 'session_busy');
  assert.equal(errorCodeOf(answer(400, { error: { code: 3 } })), undefined);
  assert.equal(errorCodeOf(answer(400, { error: 'plain' })), undefined);
  assert.equal(errorCodeOf(answer(400, null)), undefined);
});

test('formatSeconds: whole hours, whole minutes, else seconds', () => {
  assert.deepEqual([7200, 3600, 120, 90, 0].map(formatSeconds), ['2 h', '1 h', '2 min', '90 s', '0 h']);
});

test("keyRejectedMessage: the listener's root, a profile on an unknown rule, a profile the listener's key does not open", () => {
  assert.equal(keyRejectedMessage('http://127.0.0.1:8642', 401), "the Hermes API at http://127.0.0.1:8642 refused the agent's key (HTTP 401)");
  const unknown = keyRejectedMessage('http://127.0.0.1:8642/p/coder', 403);
  assert.match(unknown, /^the Hermes API at http:\/\/127\.0\.0\.1:8642\/p\/coder refused the agent's key for \/p\/coder \(HTTP 403\): /);
  assert.match(unknown, /~\/\.hermes\/profiles\/coder\/\.env/);
  const listener = keyRejectedMessage('http://127.0.0.1:8642/p/coder/', 401, true);
  assert.match(listener, /^the Hermes API at http:\/\/127\.0\.0\.1:8642 accepts this key on its listener but refuses it for \/p\/coder \(HTTP 401\)/);
  assert.match(listener, /key_env_file, key_file or key_env$/);
});

test('notServedMessage names the origin, the profile and why', () => {
  assert.equal(
    notServedMessage('http://127.0.0.1:8642/p/coder', 'coder', 'answered 404'),
    'the Hermes API at http://127.0.0.1:8642 does not serve profile coder (it answered 404): gateway.multiplex_profiles is off, or Hermes has no such profile',
  );
});

describe('upstreamError', () => {
  const base = 'http://127.0.0.1:8642';
  test('401 and 403: AGENT_UNAVAILABLE, key_rejected', () => {
    for (const status of [401, 403]) {
      const e = upstreamError('runs', answer(status, { error: 'nope' }), base);
      assert.equal(e.code, ErrorCode.AGENT_UNAVAILABLE);
      assert.deepEqual(e.details, { unavailable_reason: 'key_rejected' });
      assert.equal(e.message, keyRejectedMessage(base, status));
    }
  });
  test("429: AGENT_BUSY, retryable after Retry-After's seconds (1 when not a whole number of seconds)", () => {
    const busy = upstreamError('runs', answer(429, null, { 'retry-after': '7' }), base);
    assert.equal(busy.code, ErrorCode.AGENT_BUSY);
    assert.deepEqual(busy.details, { retryable: true, retry_after_seconds: 7, http_status: 429 });
    assert.match(busy.message, /retry in 7 s$/);
    for (const value of ['soon', '-3', '1.5', '', 'Wed, 21 Oct 2026 07:28:00 GMT']) {
      assert.equal(upstreamError('runs', answer(429, null, { 'retry-after': value }), base).details?.retry_after_seconds, 1, value);
    }
    // No Retry-After at all is the same second, not "retry at once".
    assert.equal(upstreamError('runs', answer(429, null), base).details?.retry_after_seconds, 1);
  });
  test('anything else: UPSTREAM_FAILED with the status, the code and the reason cut at 200 characters', () => {
    const e = upstreamError('chat completion', answer(502, { error: { message: 'r'.repeat(250), code: 'agent_incomplete' } }), base);
    assert.equal(e.code, ErrorCode.UPSTREAM_FAILED);
    assert.deepEqual(e.details, { http_status: 502 });
    assert.equal(e.message, `Hermes API chat completion failed with HTTP 502 (agent_incomplete): ${'r'.repeat(200)}`);
    assert.equal(upstreamError('run', answer(500, { error: 'boom' }), base).message, 'Hermes API run failed with HTTP 500: boom');
    assert.equal(upstreamError('run', answer(500, null), base).message, 'Hermes API run failed with HTTP 500');
  });
});
