import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostnameOf, isLoopbackName, isLoopbackPeer, parsePublicUrls, PublicOrigin, type RequestNames } from '../../../supervisor/platform/settings/public-origin.js';

// Which names reach the gateway: the loopback names, the configured public URL(s) and, in Origin,
// the allowed browser origins; forwarding headers only from a loopback peer.

const PUBLIC = 'hermes.example.test';

function names(over: Partial<RequestNames>): RequestNames {
  return { host: '127.0.0.1:3060', origin: undefined, forwardedHost: undefined, forwardedProto: undefined, forwarded: false, peer: '127.0.0.1', ...over };
}

test('isLoopbackName: localhost, 127/8 and ::1 in either spelling, nothing else', () => {
  for (const name of ['localhost', '127.0.0.1', '127.255.3.9', '[::1]', '::1']) assert.equal(isLoopbackName(name), true, name);
  for (const name of ['LOCALHOST.example', '128.0.0.1', '127.0.0', '127.0.0.1.example', '0.0.0.0', '[::2]', '']) assert.equal(isLoopbackName(name), false, name);
});

test('isLoopbackPeer: only IP addresses on loopback, IPv4-mapped included', () => {
  for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackPeer(peer), true, peer);
  for (const peer of [undefined, '', 'localhost', '10.0.0.1', '::ffff:10.0.0.1', '::2', '127.0.0.1.example']) assert.equal(isLoopbackPeer(peer), false, String(peer));
});

test('parsePublicUrls: unset or blank is none; a comma list becomes origins', () => {
  assert.deepEqual(parsePublicUrls(undefined), []);
  assert.deepEqual(parsePublicUrls('  '), []);
  const urls = parsePublicUrls(`https://${PUBLIC}/, https://Other.Example.test:8443 ,`);
  assert.deepEqual(urls.map((u) => u.href), [`https://${PUBLIC}/`, 'https://other.example.test:8443/']);
});

test('parsePublicUrls: each unsafe shape is refused with the reason and the variable', () => {
  const cases: Array<[string, RegExp]> = [
    ['not a url', /"not a url" is not a URL/],
    [`http://${PUBLIC}`, /must use https/],
    [`https://user:pw@${PUBLIC}`, /must not carry user info/],
    [`https://${PUBLIC}/?x=1`, /must not carry a query or fragment/],
    [`https://${PUBLIC}/#frag`, /must not carry a query or fragment/],
    [`https://${PUBLIC}?`, /must not carry a query or fragment/],
    [`https://${PUBLIC}/prefix`, /must be an origin without a path/],
    ['https://localhost', /must be the public name, not a loopback name/],
    ['https://127.0.0.5:8443', /must be the public name/],
  ];
  for (const [value, why] of cases) {
    assert.throws(() => parsePublicUrls(`https://ok.example.test,${value}`), (e: Error) => e.message.startsWith('HERMES_MCP_PUBLIC_URL: ') && why.test(e.message) && e.message.endsWith('expected e.g. https://hermes.example.ts.net'), value);
  }
});

test('hostnameOf: lower-case host without port; IPv6 keeps brackets; anything with more is undefined', () => {
  assert.equal(hostnameOf('Hermes.Example.Test:443'), PUBLIC);
  assert.equal(hostnameOf(' 127.0.0.1:3060 '), '127.0.0.1');
  assert.equal(hostnameOf('[::1]:3060'), '[::1]');
  for (const value of [undefined, null, '', 'a@b.test', 'b.test/path', 'b.test?x', 'b.test#y', 'bad host']) assert.equal(hostnameOf(value), undefined, String(value));
});

test('PublicOrigin without a public URL: loopback is local, every other name is refused', () => {
  const edge = new PublicOrigin([]);
  assert.equal(edge.configured, false);
  assert.deepEqual(edge.judge(names({})), { ok: true, local: true, publicUrl: undefined });
  assert.deepEqual(edge.judge(names({ host: `${PUBLIC}` })), { ok: false, status: 403, message: `Invalid Host: ${PUBLIC} is neither a loopback name nor a configured HERMES_MCP_PUBLIC_URL` });
  assert.deepEqual(edge.judge(names({ host: undefined })), { ok: false, status: 403, message: 'Invalid Host header: missing or malformed' });
  assert.deepEqual(edge.judge(names({ origin: 'https://evil.example' })), { ok: false, status: 403, message: 'Invalid Origin: https://evil.example is not a loopback, public or allowed origin (HERMES_MCP_ALLOWED_ORIGINS)' });
  assert.equal(edge.judge(names({ origin: 'http://localhost:5173' })).ok, true);
  assert.equal(edge.judge(names({ origin: 'null' })).ok, false);
});

test('PublicOrigin with public URLs: the public Host names its URL and is not local', () => {
  const [first, second] = parsePublicUrls(`https://${PUBLIC}, https://two.example.test`);
  const edge = new PublicOrigin([first!, second!], ['https://chatgpt.com']);
  assert.equal(edge.configured, true);
  assert.equal(edge.urlFor('two.example.test'), second);
  assert.equal(edge.urlFor(undefined), undefined);
  assert.deepEqual(edge.judge(names({ host: 'TWO.example.test', peer: '203.0.113.9' })), { ok: true, local: false, publicUrl: second });
  // Loopback Host without forwarding: local, and the first public URL is the one to name.
  assert.deepEqual(edge.judge(names({})), { ok: true, local: true, publicUrl: first });
  assert.equal(edge.judge(names({ host: PUBLIC, origin: 'https://chatgpt.com' })).ok, true);
  assert.equal(edge.judge(names({ host: PUBLIC, origin: `https://${PUBLIC}` })).ok, true);
  // An allowed origin is matched as a whole origin, not by hostname.
  assert.equal(edge.judge(names({ host: PUBLIC, origin: 'http://chatgpt.com' })).ok, false);
});

test('PublicOrigin: forwarding headers only from a loopback peer, and a forwarded Host must be ours', () => {
  const [first, second] = parsePublicUrls(`https://${PUBLIC}, https://two.example.test`);
  const edge = new PublicOrigin([first!, second!]);
  assert.deepEqual(edge.judge(names({ forwarded: true, peer: '10.1.2.3' })), { ok: false, status: 403, message: 'Forbidden: X-Forwarded-* headers are accepted only from the local tunnel or proxy' });
  assert.deepEqual(edge.judge(names({ forwarded: true, peer: undefined })).ok, false);
  // The forwarder rewrote Host to loopback: the first X-Forwarded-Host entry names the URL; never local.
  assert.deepEqual(edge.judge(names({ forwarded: true, forwardedHost: 'two.example.test, other.test' })), { ok: true, local: false, publicUrl: second });
  assert.deepEqual(edge.judge(names({ forwarded: true, forwardedHost: 'localhost:3060' })), { ok: true, local: false, publicUrl: first });
  assert.deepEqual(edge.judge(names({ forwarded: true, forwardedHost: 'evil.example' })), { ok: false, status: 403, message: 'Invalid X-Forwarded-Host: evil.example is not a configured HERMES_MCP_PUBLIC_URL' });
  assert.deepEqual(edge.judge(names({ forwarded: true, forwardedHost: 'a b' })), { ok: false, status: 403, message: 'Invalid X-Forwarded-Host: malformed is not a configured HERMES_MCP_PUBLIC_URL' });
});
