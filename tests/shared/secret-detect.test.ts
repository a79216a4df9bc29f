import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containsKnownTokenFormat, containsSecret } from '../../shared/secret-detect.js';

const OPENAI_KEY = 'sk-' + 'proj-' + 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f';
const GITHUB_PAT = 'ghp' + '_' + 'R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678';

test('containsSecret: any redaction pass finds something (a key format, an assignment)', () => {
  assert.equal(containsSecret(`remember my key ${OPENAI_KEY}`), true);
  assert.equal(containsSecret('DB_PASSWORD=hunter2'), true);
  assert.equal(containsSecret('the user prefers dark mode'), false);
});

test('containsKnownTokenFormat: only a credential of a known format, not an assignment of an arbitrary value', () => {
  assert.equal(containsKnownTokenFormat(`https://example.com/?token=${GITHUB_PAT}`), true);
  assert.equal(containsKnownTokenFormat(`https://example.com/${OPENAI_KEY}`), true);
  assert.equal(containsKnownTokenFormat('https://example.com/?password=hunter2'), false);
  assert.equal(containsKnownTokenFormat('https://example.com/docs/page'), false);
});

test('containsSecret is whether ordinary-text redaction changes the text', () => {
  assert.equal(containsSecret('DATABASE_PASSWORD=swordfish-swordfish'), true);
  assert.equal(containsSecret('call me at +14155550123'), true);
  assert.equal(containsSecret('MAX_TOKENS=100 in ordinary text'), true, 'a token-named key: some supported Hermes masks it');
  assert.equal(containsSecret('width=100 height=20'), false);
  assert.equal(containsSecret('just words'), false);
});
