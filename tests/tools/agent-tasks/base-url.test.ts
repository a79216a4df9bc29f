import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseUrlProblem, normalizeBaseUrl, profileOf } from '../../../supervisor/tools/agent-tasks/base-url.js';

// Where a Hermes agent may live: literal loopback or Tailscale addresses, no credentials, the path
// empty or one /p/<profile>.

test('loopback and Tailscale literals, http or https, an empty path or one profile: allowed', () => {
  for (const url of ['http://127.0.0.1:8642', 'https://127.5.6.7/', 'http://[::1]:8642', 'http://100.64.0.1', 'http://100.127.255.254:1', 'http://[fd7a:115c:a1e0::1]:8642', 'http://127.0.0.1:8642/p/coder', 'http://127.0.0.1:8642/p/a.b_c-1/']) {
    assert.equal(baseUrlProblem(url), undefined, url);
  }
});

test('each refusal says why', () => {
  assert.equal(baseUrlProblem('not a url'), '"not a url" is not a URL');
  assert.equal(baseUrlProblem('ftp://127.0.0.1'), 'ftp://127.0.0.1: only http and https are allowed');
  for (const url of ['http://u:p@127.0.0.1', 'http://127.0.0.1/?x=1', 'http://127.0.0.1/#f']) assert.equal(baseUrlProblem(url), `${url}: no credentials, query or fragment allowed`);
  assert.equal(baseUrlProblem('http://localhost:8642'), 'http://localhost:8642: the host must be a literal loopback or Tailscale address, not a name');
  for (const [url, host] of [['http://10.0.0.1', '10.0.0.1'], ['http://100.128.0.1', '100.128.0.1'], ['http://[fd7a:115c:a1e1::1]', 'fd7a:115c:a1e1::1'], ['http://[::2]', '::2']]) {
    assert.equal(baseUrlProblem(url!), `${url}: ${host} is neither loopback nor a Tailscale address (100.64.0.0/10, fd7a:115c:a1e0::/48)`);
  }
  for (const url of ['http://127.0.0.1/v1', 'http://127.0.0.1/p/', 'http://127.0.0.1/p/a/b', 'http://127.0.0.1/p/-x', `http://127.0.0.1/p/${'x'.repeat(65)}`]) {
    assert.equal(baseUrlProblem(url), `${url}: the path must be empty or /p/<profile>`);
  }
});

test('profileOf and normalizeBaseUrl', () => {
  assert.equal(profileOf('http://127.0.0.1:8642/p/coder'), 'coder');
  assert.equal(profileOf('http://127.0.0.1:8642/p/coder/'), 'coder');
  assert.equal(profileOf('http://127.0.0.1:8642/'), undefined);
  assert.equal(normalizeBaseUrl('http://127.0.0.1:8642/p/coder//'), 'http://127.0.0.1:8642/p/coder');
  assert.equal(normalizeBaseUrl('http://127.0.0.1:8642'), 'http://127.0.0.1:8642');
});
