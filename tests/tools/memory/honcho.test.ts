import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { ConnectionError, HonchoError, TimeoutError } from '@honcho-ai/sdk';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { HonchoSettings } from '../../../supervisor/tools/memory/config.js';
import { describeFailure, displayUrl, HonchoBackend, honchoStatus, toGatewayError } from '../../../supervisor/tools/memory/honcho.js';
import { honchoStandinForFile } from '../../fixtures/honcho-standin.js';

// The one Honcho client: its readiness probe and peers against the in-process Honcho stand-in
// (real loopback HTTP), and how its failures read and which gateway error each becomes.

const honcho = honchoStandinForFile();

function settings(baseURL: string, over: Partial<HonchoSettings> = {}): HonchoSettings {
  return {
    identity: { host: 'hermes', workspace: 'ws-test', userPeer: 'ada', assistantPeer: 'chatgpt', session: 'proj' },
    baseURL,
    apiKeySource: 'none',
    reasoningLevel: 'low',
    reasoningDynamic: true,
    readObserver: 'hermes',
    hermesPeer: 'hermes',
    source: '/home/h/.honcho/config.json',
    warnings: [],
    ...over,
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

test('before the SDK is loaded nothing is an SDK error: a plain message, and toGatewayError rethrows', () => {
  const e = new HonchoError('x', 500);
  assert.equal(describeFailure(e, 'http://h'), 'Honcho at http://h: x');
  assert.equal(honchoStatus(e), undefined);
  assert.throws(() => toGatewayError(e, 'http://h'), (thrown: unknown) => thrown === e);
});

test('displayUrl: userinfo and the trailing slash dropped; an invalid URL is named so', () => {
  assert.equal(displayUrl('http://user:secret@127.0.0.1:8000/'), 'http://127.0.0.1:8000');
  assert.equal(displayUrl('https://honcho.example/api/'), 'https://honcho.example/api');
  assert.equal(displayUrl('not a url'), '(invalid url)');
});

test('probe: ready with the identity and latency when Honcho answers the workspace get-or-create', async () => {
  const backend = new HonchoBackend(settings(honcho().url, { warnings: ['a warning'] }), 10_000);
  const result = await backend.probe();
  assert.equal(result.ready, true);
  assert.equal(result.status, 'ok');
  const { latency_ms: latency, ...details } = result.details as Record<string, unknown>;
  assert.equal(typeof latency, 'number');
  assert.deepEqual(details, { base_url: displayUrl(honcho().url), workspace: 'ws-test', user_peer: 'ada', assistant_peer: 'chatgpt', session: 'proj', host: 'hermes', config: '/home/h/.honcho/config.json', api_key: 'none', warnings: ['a warning'] });
  assert.ok(honcho().calls.some((c) => c.method === 'POST' && c.path === '/v3/workspaces'));
});

test('probe: an unreachable Honcho is not ready, with what to do', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const result = await new HonchoBackend(settings(url), 10_000).probe();
  assert.equal(result.ready, false);
  assert.equal(result.status, 'error');
  assert.match(result.reason!, new RegExp(`^Honcho at ${url.replace(/\./g, '\\.')} is unreachable \\(`));
  assert.equal(result.action, `start Honcho at ${url} or correct its address and key in /home/h/.honcho/config.json, or set HERMES_MCP_OPTIONAL_COMPONENTS=memory to run without it`);
});

test('prepare: the peers get-or-created once; the read observer is the assistant, the user or its own peer', async () => {
  const assistantView = new HonchoBackend(settings(honcho().url, { readObserver: 'chatgpt' }), 10_000);
  const p = await assistantView.prepare();
  assert.equal(assistantView.prepare(), assistantView.prepare());
  assert.deepEqual([p.honcho.workspaceId, p.user.id, p.assistant.id, p.observer.id], ['ws-test', 'ada', 'chatgpt', 'chatgpt']);
  assert.equal(p.observer, p.assistant);
  assert.equal(p.session('s-1').id, 's-1');
  const userView = await new HonchoBackend(settings(honcho().url, { readObserver: 'ada' }), 10_000).prepare();
  assert.equal(userView.observer, userView.user);
  const ownView = await new HonchoBackend(settings(honcho().url, { readObserver: 'hermes' }), 10_000).prepare();
  assert.equal(ownView.observer.id, 'hermes');
});

test('prepare: a failure is not memoized', async () => {
  const backend = new HonchoBackend(settings(`http://127.0.0.1:${await closedPort()}`), 10_000);
  const first = backend.prepare();
  await assert.rejects(first);
  assert.notEqual(backend.prepare(), first);
  await assert.rejects(backend.prepare());
});

test('describeFailure and toGatewayError: each SDK failure by kind and status', () => {
  const url = 'http://k:secret@honcho.test:8000';
  const where = 'Honcho at http://honcho.test:8000';
  assert.equal(describeFailure(new TimeoutError(), url), `${where} did not answer in time`);
  const timeout = toGatewayError(new TimeoutError(), url);
  assert.deepEqual([timeout.code, timeout.message, timeout.details], [ErrorCode.MEMORY_TIMEOUT, `${where} did not answer in time`, undefined]);
  const refused = toGatewayError(new ConnectionError('ECONNREFUSED'), url);
  assert.deepEqual([refused.code, refused.message, refused.details], [ErrorCode.MEMORY_UNAVAILABLE, `${where} is unreachable (ECONNREFUSED)`, undefined]);
  for (const status of [401, 403]) {
    const e = toGatewayError(new HonchoError('no', status), url);
    assert.deepEqual([e.code, e.message, e.details], [ErrorCode.MEMORY_UNAVAILABLE, `${where} refused the credentials (HTTP ${status})`, { http_status: status }]);
  }
  const invalid = new HonchoError('[object Object]', 422, { body: { detail: [{ loc: ['body', 'content'], msg: 'too long' }, { msg: 'bad' }] } });
  assert.equal(honchoStatus(invalid), 422);
  const rejected = toGatewayError(invalid, url);
  assert.deepEqual([rejected.code, rejected.message, rejected.details], [ErrorCode.MEMORY_REJECTED, `${where} answered HTTP 422: body.content: too long; ?: bad`, { http_status: 422 }]);
  const server = toGatewayError(new HonchoError('internal', 503), url);
  assert.deepEqual([server.code, server.message, server.details], [ErrorCode.MEMORY_UNAVAILABLE, `${where} answered HTTP 503: internal`, { http_status: 503 }]);
  assert.equal(describeFailure('text', url), `${where}: text`);
  const bug = new RangeError('bug');
  assert.throws(() => toGatewayError(bug, url), (e: unknown) => e === bug && !(e instanceof GatewayError));
});
