import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FILE_READ_MASKER, OUTPUT_MASKER } from '../../../shared/redact/mask.js';
import {
  ANY_CASE_ENV_GATE_RE,
  ANY_CASE_ENV_NAME_RE,
  CFG_NAME_KEYWORD_RE,
  ENV_LOOKUP_VALUE_RE,
  ENV_NAME_KEYWORD_RE,
  LINE_NUMBER_GUTTER,
  maskMaybeQuoted,
  NEWER_ENV_NAME_KEYWORD_RE,
  newerPolicy,
  QUOTE_CLOSES,
  shouldMaskValue,
  YAML_NAME_KEYWORD_RE,
} from '../../../shared/redact/value-policy.js';

// Which key names hold a secret and which of their values are masked: 0.19's policy (every value)
// and newer Hermes' (a word-bounded keyword, then a strong key or an opaque-looking value).

test('the name keyword patterns: ENV upper case, config any case, YAML without bare auth', () => {
  assert.equal(ENV_NAME_KEYWORD_RE.test('OPENAI_APIKEY'), true);
  assert.equal(ENV_NAME_KEYWORD_RE.test('AUTHOR'), true, 'a keyword anywhere in the name');
  assert.equal(ENV_NAME_KEYWORD_RE.test('openai_api_key'), false);
  assert.equal(NEWER_ENV_NAME_KEYWORD_RE.test('MYSQL_PW'), true);
  assert.equal(CFG_NAME_KEYWORD_RE.test('Author'), true);
  assert.equal(YAML_NAME_KEYWORD_RE.test('author'), false);
  assert.equal(YAML_NAME_KEYWORD_RE.test('auth_token'), true);
  assert.equal(YAML_NAME_KEYWORD_RE.test('api.key'), true);
});

test('any-case ENV names end in _ and a keyword; the gate needs the = after it', () => {
  for (const name of ['openai_key', 'db_pw', 'My_Pass', 'x_credential']) assert.match(name, ANY_CASE_ENV_NAME_RE, name);
  for (const name of ['password', 'token', 'openai_keys', 'key_file']) assert.doesNotMatch(name, ANY_CASE_ENV_NAME_RE, name);
  assert.equal(ANY_CASE_ENV_GATE_RE.test('db_pw \t= x'), true);
  assert.equal(ANY_CASE_ENV_GATE_RE.test('db_pw: x'), false);
});

test('ENV_LOOKUP_VALUE_RE: values that name a variable', () => {
  for (const v of ['os.getenv("K")', 'os.environ["K"]', 'process.env.K', '$ENV{K}']) assert.match(v, ENV_LOOKUP_VALUE_RE, v);
  assert.doesNotMatch('x = os.getenv("K")', ENV_LOOKUP_VALUE_RE);
});

test('0.19\'s policy masks every value but empty ones, masks, PEM blocks and variable lookups', () => {
  for (const v of ['x', '100', 'hunter2', '$HOME/path']) assert.equal(shouldMaskValue(v, OUTPUT_MASKER), true, v);
  for (const v of ['', '***', 'abcdef...wxyz', '«redacted-secret»', '-----BEGIN RSA PRIVATE KEY-----', '"-----BEGIN', 'process.env.TOKEN']) {
    assert.equal(shouldMaskValue(v, OUTPUT_MASKER), false, v);
  }
});

test('newer Hermes\' policy needs a word-bounded keyword in the name', () => {
  const opaque = 'AAAAB3NzaC1yc2EAAAADAQAB';
  assert.equal(newerPolicy('SSH_KEY', OUTPUT_MASKER)(opaque), true);
  assert.equal(newerPolicy('KEYBOARD', OUTPUT_MASKER)(opaque), false, 'KEY inside a word');
  assert.equal(newerPolicy('apiKey', OUTPUT_MASKER)(opaque), true, 'a camelCase boundary');
  assert.equal(newerPolicy('ssh_keys', OUTPUT_MASKER)(opaque), true, 'one plural s');
});

test('newer Hermes\' policy: a strong key masks any value, a weak one only an opaque-looking value', () => {
  assert.equal(newerPolicy('DB_PASS', OUTPUT_MASKER)('x'), true);
  assert.equal(newerPolicy('SSH_KEY', OUTPUT_MASKER)('abc'), false);
  assert.equal(newerPolicy('MAX_TOKENS', OUTPUT_MASKER)('100'), false);
  assert.equal(newerPolicy('MAX_TOKENS', OUTPUT_MASKER)('0123456789abcdef'), true, '16 hex digits');
  assert.equal(newerPolicy('SSH_KEY', OUTPUT_MASKER)('a1b2c3d4e5f6'), true, '12 characters of two classes');
  assert.equal(newerPolicy('SSH_KEY', OUTPUT_MASKER)('abcdefghijkl'), false, 'one class only');
});

test('newer Hermes\' policy keeps paths and variables unless the key is password-class or a segment is opaque', () => {
  assert.equal(newerPolicy('SSH_AUTH_SOCK', OUTPUT_MASKER)('$HOME/agent.sock'), false);
  assert.equal(newerPolicy('API_KEY', OUTPUT_MASKER)('/etc/app/conf'), false);
  assert.equal(newerPolicy('API_KEY', OUTPUT_MASKER)('/srv/aB3dEf6hIj9lMn2pQr'), true, 'an opaque path segment');
  assert.equal(newerPolicy('API_KEY', OUTPUT_MASKER)('${SECRET}/aB3dEf6hIj9lMn2pQr'), false, 'a variable-led path is kept whatever follows');
  assert.equal(newerPolicy('DB_PASS', OUTPUT_MASKER)('$HOME/x'), true);
  assert.equal(newerPolicy('API_KEY', OUTPUT_MASKER)('os.getenv("K")'), false);
  assert.equal(newerPolicy('API_KEY', OUTPUT_MASKER)(''), false);
});

test('maskMaybeQuoted keeps matching quotes around the mask', () => {
  assert.equal(maskMaybeQuoted('"hunter2hunter2hunter2"', OUTPUT_MASKER), '"hunter...ter2"');
  assert.equal(maskMaybeQuoted("'abc'", OUTPUT_MASKER), "'***'");
  assert.equal(maskMaybeQuoted("'abc", OUTPUT_MASKER), '***', 'an unmatched quote is part of the value');
  assert.equal(maskMaybeQuoted('"', OUTPUT_MASKER), '***');
  assert.equal(maskMaybeQuoted('""', OUTPUT_MASKER), '""', 'an empty value stays');
  assert.equal(maskMaybeQuoted('"abc"', OUTPUT_MASKER, () => false), '"abc"', 'the policy decides');
  assert.equal(maskMaybeQuoted('"sk-abc"', FILE_READ_MASKER), '"«redacted:sk-…»"');
});

test('QUOTE_CLOSES and LINE_NUMBER_GUTTER', () => {
  const closes = new RegExp(`^"${QUOTE_CLOSES}`);
  assert.equal(closes.test('"'), true);
  assert.equal(closes.test('"}, next'), true);
  assert.equal(closes.test('"ss'), false, 'a quote followed by more of the value');
  const gutter = new RegExp(`^${LINE_NUMBER_GUTTER}KEY`);
  for (const line of ['KEY', '5|KEY', '6:KEY', '7-KEY', '8\tKEY', '12| \tKEY']) assert.match(line, gutter, line);
  for (const line of ['a5|KEY', '1234567890123|KEY', '5 KEY']) assert.doesNotMatch(line, gutter, line);
});
