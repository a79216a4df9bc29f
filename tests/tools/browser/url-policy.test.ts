import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPageUrl, classifyAddress, type UrlPolicy } from '../../../supervisor/tools/browser/url-policy.js';

// Which pages browser_navigate may open, checked on addresses only: no name here is looked up in DNS
// (localhost and the metadata names are refused before any lookup). navigate-policy.test.ts checks
// the same through a gateway and a recording fake Camofox.

const closed: UrlPolicy = { allowPrivateUrls: false, urlMaxChars: 2048, lookupTimeoutMs: 500 };
const open: UrlPolicy = { ...closed, allowPrivateUrls: true };

test('classifyAddress: metadata, private ranges (also IPv4-mapped, bracketed, zoned), public', () => {
  for (const ip of ['169.254.169.254', '169.254.1.1', '100.100.100.200', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe']) assert.equal(classifyAddress(ip), 'metadata', ip);
  for (const ip of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.1.1', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '[::1]', 'fe80::1%eth0', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
    assert.equal(classifyAddress(ip), 'private', ip);
  }
  for (const ip of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111']) assert.equal(classifyAddress(ip), null, ip);
});

test('checkPageUrl: the normalized URL for a public address', async () => {
  assert.equal(await checkPageUrl(' http://8.8.8.8/a b?q=1 ', closed), 'http://8.8.8.8/a%20b?q=1');
  assert.equal(await checkPageUrl('https://[2606:4700::1111]/', closed), 'https://[2606:4700::1111]/');
  assert.equal(await checkPageUrl('http://8.8.8.8/?token=', closed), 'http://8.8.8.8/?token=', 'an empty credential parameter carries nothing');
});

test('checkPageUrl: size, shape and scheme errors', async () => {
  await assert.rejects(checkPageUrl(`http://8.8.8.8/${'a'.repeat(2048)}`, closed), { code: 'BROWSER_INPUT_TOO_LARGE' });
  await assert.rejects(checkPageUrl('not a url', closed), { code: 'BROWSER_URL_INVALID' });
  for (const [raw, scheme] of [['file:///etc/passwd', 'file'], ['javascript:alert(1)', 'javascript'], ['data:text/html,x', 'data'], ['about:blank', 'about']] as const) {
    await assert.rejects(checkPageUrl(raw, open), { code: 'BROWSER_URL_INVALID', details: { scheme } }, raw);
  }
});

test('checkPageUrl: BROWSER_URL_BLOCKED with its reason: credentials in the URL, metadata always, private unless allowed', async () => {
  const reason = async (raw: string, policy: UrlPolicy) => {
    try {
      await checkPageUrl(raw, policy);
      return 'allowed';
    } catch (e) {
      const err = e as { code?: string; details?: { reason?: string } };
      assert.equal(err.code, 'BROWSER_URL_BLOCKED', raw);
      return err.details?.reason;
    }
  };
  assert.equal(await reason('http://8.8.8.8/?API_KEY=abc', open), 'credential_parameter');
  assert.equal(await reason(`http://8.8.8.8/?q=${encodeURIComponent('sk-proj-' + 'a'.repeat(40))}`, open), 'secret_in_url');
  for (const raw of ['http://169.254.169.254/latest/meta-data', 'http://metadata.google.internal/', 'http://METADATA.GOOG./x', 'http://[fd00:ec2::254]/']) {
    assert.equal(await reason(raw, open), 'cloud_metadata', raw);
  }
  for (const raw of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://app.localhost./', 'http://[::1]/', 'http://10.0.0.5/']) {
    assert.equal(await reason(raw, closed), 'private_address', raw);
    if (!raw.includes('localhost')) assert.equal(await reason(raw, open), 'allowed', raw);
  }
});

test('checkPageUrl on a URL the browser reported: no size or credential checks, the host still checked', async () => {
  assert.equal(await checkPageUrl(`http://8.8.8.8/?token=x&p=${'a'.repeat(3000)}`, closed, true), `http://8.8.8.8/?token=x&p=${'a'.repeat(3000)}`);
  await assert.rejects(checkPageUrl('http://192.168.0.1/', closed, true), { code: 'BROWSER_URL_BLOCKED', details: { reason: 'private_address' } });
});
