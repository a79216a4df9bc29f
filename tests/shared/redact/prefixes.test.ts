import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FILE_READ_MASKER } from '../../../shared/redact/mask.js';
import { matchedFormat, PREFIX_RE, redactKnownFormats, redactZhipuKeys } from '../../../shared/redact/prefixes.js';

// Pass 1 on its own: the compiled format regex, value formats, keys split by control characters,
// and Zhipu keys. Fixture secrets are assembled from pieces; none is a real credential.

const GITHUB_PAT = 'ghp' + '_' + 'R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY';

test('matchedFormat names the format of a PREFIX_RE match', () => {
  const m = [...`use ${GITHUB_PAT} here`.matchAll(PREFIX_RE)];
  assert.equal(m.length, 1);
  assert.equal(m[0]![0], GITHUB_PAT);
  assert.equal(matchedFormat(m[0]!.groups ?? {})?.pattern.startsWith('ghp_'), true);
  assert.equal(matchedFormat({}), undefined);
});

test('a known token is masked whole, only at a word boundary', () => {
  assert.equal(redactKnownFormats(`token ${GITHUB_PAT}.`), 'token ghp_R4...5678.');
  assert.equal(redactKnownFormats(`my${GITHUB_PAT}`), `my${GITHUB_PAT}`, 'inside another identifier');
  assert.equal(redactKnownFormats(`${GITHUB_PAT}x-`), `${GITHUB_PAT}x-`, 'running on into more token characters');
  assert.equal(redactKnownFormats('nothing to see'), 'nothing to see');
});

test('JSON-escaped text: a key right after \\n or \\u00e9 is still a key', () => {
  assert.equal(redactKnownFormats(`"line\\n${GITHUB_PAT}"`), '"line\\nghp_R4...5678"');
  assert.equal(redactKnownFormats(`"caf\\u00e9${GITHUB_PAT}"`), '"caf\\u00e9ghp_R4...5678"');
});

test('a value format masks only the value after its lead', () => {
  assert.equal(redactKnownFormats(`aws_secret_access_key = "${AWS_SECRET}"`), 'aws_secret_access_key = "wJalrX...EKEY"');
  assert.equal(redactKnownFormats(`aws_secret_access_key=${AWS_SECRET}`, FILE_READ_MASKER), 'aws_secret_access_key=«redacted-secret»');
});

test('the file-read masker writes a labelled sentinel for a token', () => {
  assert.equal(redactKnownFormats(`key: ${GITHUB_PAT}`, FILE_READ_MASKER), 'key: «redacted:ghp_…»');
});

test('a key split by control or zero-width characters is joined and masked', () => {
  const split = `${GITHUB_PAT.slice(0, 10)}\u200b${GITHUB_PAT.slice(10)}`;
  assert.equal(redactKnownFormats(`x ${split} y`), 'x ghp_R4...5678 y');
  const escaped = `${GITHUB_PAT.slice(0, 8)}\x1b${GITHUB_PAT.slice(8)}`;
  assert.equal(redactKnownFormats(escaped), 'ghp_R4...5678');
  // A key by itself followed by a word on the next line is a key and a word, not one key.
  assert.equal(redactKnownFormats(`${GITHUB_PAT}\nbutton`), 'ghp_R4...5678\nbutton');
  // A span running into a NAME= is not joined.
  assert.equal(redactKnownFormats(`ghp_\u200bABC=1`), 'ghp_\u200bABC=1');
});

test('redactZhipuKeys: 32 hex, a dot and 16+ alphanumerics, as a whole run', () => {
  const key = `${'0123456789abcdef'.repeat(2)}.${'AbCdEfGh12345678'}`;
  assert.equal(redactZhipuKeys(`zhipu ${key}`), 'zhipu 012345...5678');
  assert.equal(redactZhipuKeys(`${key}`, FILE_READ_MASKER), '«redacted-secret»');
  assert.equal(redactZhipuKeys(`${'0123456789abcdef'.repeat(2)}.bundle`), `${'0123456789abcdef'.repeat(2)}.bundle`, 'a content-hash file name');
  assert.equal(redactZhipuKeys(`v1.${key}`), `v1.${key}`, 'inside a longer dotted run');
  assert.equal(redactZhipuKeys('no dot'), 'no dot');
});
