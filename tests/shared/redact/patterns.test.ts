import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AUTH_GATE_RE,
  AUTH_HEADER_RE,
  DB_CONNSTR_RE,
  JWT_RE,
  maskPhone,
  PHONE_RE,
  redactFormBody,
  redactPrivateKeys,
  SECRET_HEADER_GATE_RE,
  SECRET_HEADER_RE,
  TELEGRAM_RE,
  TEMPLATE_PLACEHOLDER_RE,
  URL_BARE_TOKEN_RE,
  URL_PASSWORD_RE,
} from '../../../shared/redact/patterns.js';

// The patterns of passes 5-13, each on its own: what they capture and what they leave. How the
// pipeline masks the captures is tests/shared/redact/pipeline.test.ts' business.

/** Every match's capture groups (index 1 on). */
function groups(re: RegExp, text: string): string[][] {
  return [...text.matchAll(re)].map((m) => m.slice(1).map((g) => g ?? ''));
}

test('AUTH_HEADER_RE splits header, scheme and credential, in header and JSON forms', () => {
  assert.deepEqual(groups(AUTH_HEADER_RE, 'Authorization: Bearer abc.def'), [['Authorization: ', 'Bearer ', 'abc.def']]);
  assert.deepEqual(groups(AUTH_HEADER_RE, 'proxy-authorization:\tBasic dXNlcg=='), [['proxy-authorization:\t', 'Basic ', 'dXNlcg==']]);
  assert.deepEqual(groups(AUTH_HEADER_RE, '{"Authorization": "token123"}'), [['Authorization": "', '', 'token123']]);
  assert.deepEqual(groups(AUTH_HEADER_RE, '{\\"authorization\\": \\"Bearer xyz\\"}'), [['authorization\\": \\"', 'Bearer ', 'xyz']]);
  assert.equal(AUTH_GATE_RE.test('AUTHORIZATION'), true);
});

test('SECRET_HEADER_RE captures API-key header values up to the closing quote', () => {
  assert.deepEqual(groups(SECRET_HEADER_RE, 'X-Api-Key: k-123'), [['Api-Key: ', 'k-123']]);
  assert.deepEqual(groups(SECRET_HEADER_RE, '"x-auth-token": "t0k3n", next'), [['x-auth-token": "', 't0k3n']]);
  assert.deepEqual(groups(SECRET_HEADER_RE, 'X-Postmark-Server-Token: pm'), [['X-Postmark-Server-Token: ', 'pm']]);
  assert.deepEqual(groups(SECRET_HEADER_RE, 'X-Request-Id: 42'), []);
  assert.equal(SECRET_HEADER_GATE_RE.test('x-access-token'), true);
  assert.equal(SECRET_HEADER_GATE_RE.test('content-type'), false);
});

test('TELEGRAM_RE needs 8+ digits, no digit before, and a 30+ character secret', () => {
  const secret = 'A'.repeat(30);
  assert.deepEqual(groups(TELEGRAM_RE, `bot12345678:${secret}`), [['bot', '12345678', secret]]);
  assert.deepEqual(groups(TELEGRAM_RE, `id 12345678:${secret}`), [['', '12345678', secret]]);
  assert.deepEqual(groups(TELEGRAM_RE, `1234567:${secret}`), [], '7 digits');
  assert.deepEqual(groups(TELEGRAM_RE, `12345678:${'A'.repeat(29)}`), [], '29 characters');
});

test('redactPrivateKeys replaces whole PEM blocks, and an unterminated one up to its last base64 line', () => {
  const block = '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\nabc=\n-----END RSA PRIVATE KEY-----';
  assert.equal(redactPrivateKeys(`before\n${block}\nafter`), 'before\n[REDACTED PRIVATE KEY]\nafter');
  assert.equal(redactPrivateKeys(`${block}\n${block}`), '[REDACTED PRIVATE KEY]\n[REDACTED PRIVATE KEY]');
  const cut = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAABG5vbmU=\nnot base64 here';
  assert.equal(redactPrivateKeys(cut), '[REDACTED PRIVATE KEY]\nnot base64 here');
  const encrypted = '-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nMHcCAQEE\n...';
  assert.equal(redactPrivateKeys(encrypted), '[REDACTED PRIVATE KEY]\n...');
  const publicKey = '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----';
  assert.equal(redactPrivateKeys(publicKey), publicKey);
});

test('redactPrivateKeys stays linear on many BEGIN markers without an END', () => {
  const evil = '-----BEGIN PRIVATE KEY-----x'.repeat(20_000);
  const started = process.hrtime.bigint();
  assert.equal(redactPrivateKeys(evil), '[REDACTED PRIVATE KEY]x'.repeat(20_000));
  assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 1000);
});

test('DB_CONNSTR_RE captures the password of a database URL, and TEMPLATE_PLACEHOLDER_RE spots ${...}', () => {
  assert.deepEqual(groups(DB_CONNSTR_RE, 'postgresql://app:s3cr3t@db:5432/x'), [['postgresql://app:', 's3cr3t', '@']]);
  assert.deepEqual(groups(DB_CONNSTR_RE, 'MONGODB+SRV://:pw@h'), [['MONGODB+SRV://:', 'pw', '@']]);
  assert.deepEqual(groups(DB_CONNSTR_RE, 'https://app:s3cr3t@host'), []);
  assert.equal(TEMPLATE_PLACEHOLDER_RE.test('${DB_PASSWORD}'), true);
  assert.equal(TEMPLATE_PLACEHOLDER_RE.test('{password}'), true);
  assert.equal(TEMPLATE_PLACEHOLDER_RE.test('${A}${B}'), false);
});

test('URL userinfo: a bare token of 8+ characters, or the password after user:', () => {
  assert.deepEqual(groups(URL_BARE_TOKEN_RE, 'https://ghp_token123@github.com'), [['https://', 'ghp_token123']]);
  assert.deepEqual(groups(URL_BARE_TOKEN_RE, 'https://short@host'), [], '5 characters');
  assert.deepEqual(groups(URL_PASSWORD_RE, 'see redis://user:pa55@cache:6379'), [['redis://user:', 'pa55']]);
  assert.deepEqual(groups(URL_PASSWORD_RE, '1git://u:p@h'), [], 'a scheme starts with a letter, not inside a word');
  assert.deepEqual(groups(URL_PASSWORD_RE, 'https://host:8080/path@x'), []);
});

test('JWT_RE takes up to three dotted parts after eyJ and 10 characters', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
  assert.deepEqual(`a ${jwt}.more`.match(JWT_RE), [jwt], 'a fourth part is not taken');
  assert.deepEqual('eyJshort'.match(JWT_RE), null);
  assert.deepEqual('eyJ0123456789'.match(JWT_RE), ['eyJ0123456789']);
});

test('redactFormBody masks the sensitive keys of a one-line form body', () => {
  assert.equal(redactFormBody('grant_type=password&username=ann&password=hunter2'), 'grant_type=password&username=ann&password=***');
  assert.equal(redactFormBody('  Token=abc&x=1  '), 'Token=***&x=1', 'keys in any case; a masked body is trimmed');
  assert.equal(redactFormBody('a=1&b=2 '), 'a=1&b=2 ', 'nothing to mask: unchanged, whitespace and all');
  assert.equal(redactFormBody('code=&sig=***'), 'code=&sig=***', 'empty and masked values stay');
  assert.equal(redactFormBody('password=hunter2'), 'password=hunter2', 'one pair is no form body');
  assert.equal(redactFormBody('a=1&password=x\nb=2'), 'a=1&password=x\nb=2', 'multi-line text is not a form body');
  assert.equal(redactFormBody('a=1&pass word=x'), 'a=1&pass word=x');
});

test('PHONE_RE and maskPhone: E.164 numbers keep 2 or 4 digits at each end', () => {
  assert.deepEqual('call +14155550123 or +4930123'.match(PHONE_RE), ['+14155550123', '+4930123']);
  assert.deepEqual('+0123456789 +123456 +14155550123x'.match(PHONE_RE), null);
  assert.equal(maskPhone('+14155550123'), '+141****0123');
  assert.equal(maskPhone('+4930123'), '+4****23');
});
