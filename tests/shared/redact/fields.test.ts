import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  JSON_FIELD_NAME_RE,
  maskJsonFieldValue,
  redactJsonFields,
  redactPythonDiagnosticLines,
  redactPythonReprFields,
  redactYaml,
} from '../../../shared/redact/fields.js';
import { FILE_READ_MASKER } from '../../../shared/redact/mask.js';

// Passes 3 and 4 on their own: JSON fields (plain and escaped), Python repr fields, YAML keys.

const LONG = 'hunter2hunter2hunter2';

test('JSON_FIELD_NAME_RE matches exact field names in any case', () => {
  for (const name of ['apiKey', 'api_key', 'TOKEN', 'access_token', 'key_material']) assert.match(name, JSON_FIELD_NAME_RE, name);
  for (const name of ['max_tokens', 'tokens', 'my_password', 'key']) assert.doesNotMatch(name, JSON_FIELD_NAME_RE, name);
});

test('maskJsonFieldValue follows 0.19\'s policy', () => {
  assert.equal(maskJsonFieldValue(LONG), 'hunter...ter2');
  assert.equal(maskJsonFieldValue('test'), '***');
  assert.equal(maskJsonFieldValue(''), '');
  assert.equal(maskJsonFieldValue('process.env.KEY'), 'process.env.KEY');
  assert.equal(maskJsonFieldValue('x', FILE_READ_MASKER), '«redacted-secret»');
});

test('redactJsonFields masks field values, escapes included, and normalises the spacing', () => {
  assert.equal(redactJsonFields(`{"password":"${LONG}", "user": "ann"}`), '{"password": "hunter...ter2", "user": "ann"}');
  assert.equal(redactJsonFields('{"Token" : "ab\\"cd"}'), '{"Token": "***"}', 'an escaped quote stays inside the value');
  assert.equal(redactJsonFields('{"max_tokens": "100"}'), '{"max_tokens": "100"}');
  assert.equal(redactJsonFields('{"token": ""}'), '{"token": ""}');
});

test('redactJsonFields reaches fields inside JSON-encoded strings, at any depth', () => {
  assert.equal(redactJsonFields(`{"output": "{\\"api_key\\":\\"${LONG}\\"}"}`), '{"output": "{\\"api_key\\": \\"hunter...ter2\\"}"}');
  assert.equal(redactJsonFields('x \\\\\\"secret\\\\\\": \\\\\\"abc\\\\\\"'), 'x \\\\\\"secret\\\\\\": \\\\\\"***\\\\\\"');
});

test('redactPythonReprFields masks credential fields whole, keeping quote style and b prefix', () => {
  assert.equal(redactPythonReprFields(`{'BRAVE_API_KEY': '${LONG}', 'region': 'eu'}`), "{'BRAVE_API_KEY': '***', 'region': 'eu'}");
  assert.equal(redactPythonReprFields(`{'sessionToken': b"${LONG}"}`), `{'sessionToken': b"***"}`);
  assert.equal(redactPythonReprFields("{'token_count': '12', 'PASSWORD_POLICY': 'strict'}"), "{'token_count': '12', 'PASSWORD_POLICY': 'strict'}");
  assert.equal(redactPythonReprFields("{'Authorization': 'Digest ***'}"), "{'Authorization': 'Digest ***'}", 'already masked');
  assert.equal(redactPythonReprFields("{'api_key': 'os.environ[\"K\"]'}"), "{'api_key': 'os.environ[\"K\"]'}");
  assert.equal(redactPythonReprFields("{'password': 'x'}", FILE_READ_MASKER), "{'password': '«redacted-secret»'}");
});

test('redactPythonDiagnosticLines touches only pytest E lines and exception lines', () => {
  const output = [
    "config = {'api_key': 'abc'}",
    "E       assert {'api_key': 'abc'} == {}",
    "requests.exceptions.HTTPError: {'token': 'xyz'}",
  ].join('\n');
  assert.equal(
    redactPythonDiagnosticLines(output),
    ["config = {'api_key': 'abc'}", "E       assert {'api_key': '***'} == {}", "requests.exceptions.HTTPError: {'token': '***'}"].join('\n'),
  );
  assert.equal(redactPythonDiagnosticLines("E assert {'api_key': 'abc'}"), "E assert {'api_key': 'abc'}", 'one space is not pytest\'s E line');
});

test('redactYaml masks line-anchored secret keys, list items and gutters, not URLs or prose', () => {
  assert.equal(redactYaml(`password: ${LONG}\nuser: ann`), 'password: hunter...ter2\nuser: ann');
  assert.equal(redactYaml('  - api_key: "abc def"'), '  - api_key: "***"');
  assert.equal(redactYaml('12|  client_secret: s3cr3t'), '12|  client_secret: ***');
  assert.equal(redactYaml('token_url: https://auth.example.com/token'), 'token_url: https://auth.example.com/token');
  assert.equal(redactYaml('author: ann'), 'author: ann');
  assert.equal(redactYaml('the note: password: x'), 'the note: password: x', 'not at a line start');
  assert.equal(redactYaml('password: a&b'), 'password: ***&b', 'a value stops at &');
});
