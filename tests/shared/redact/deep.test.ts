import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactDeep } from '../../../shared/redact/deep.js';

// redactDeep: redact() over every string of a structure, plus the JSON-field rule for strings held
// under a secret field name. Fixture secrets are assembled from pieces; none is a real credential.
const OPENAI_KEY = 'sk-' + 'proj-' + 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f';
const GITHUB_PAT = 'ghp' + '_' + 'R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678';

test('redactDeep returns a redacted deep copy and leaves the input untouched', () => {
  const when = new Date(0);
  const input = {
    tool: 'terminal',
    output: [`export OPENAI_API_KEY=${OPENAI_KEY}`, { nested: [`Authorization: Bearer ${'q8Zr2LmX9vTn4KpW7sYd'}`] }],
    config: { password: 'hunter2', token: '4096', name: 'demo', [`${GITHUB_PAT}`]: 'key names are kept' },
    count: 3,
    ok: true,
    none: null,
    when,
  };
  const before = structuredClone(input);
  const output = redactDeep(input);
  assert.deepEqual(output, {
    tool: 'terminal',
    output: ['export OPENAI_API_KEY=***', { nested: ['Authorization: Bearer q8Zr2L...7sYd'] }],
    // The plain string "hunter2" has no secret shape; its key says it is a password.
    config: { password: '***', token: '***', name: 'demo', [`${GITHUB_PAT}`]: 'key names are kept' },
    count: 3,
    ok: true,
    none: null,
    when,
  });
  assert.deepEqual(input, before);
  assert.notEqual(output.output, input.output);
  assert.equal(output.when, when); // non-plain values pass through by reference
  assert.equal(redactDeep(`x ${OPENAI_KEY}`), 'x sk-pro...Cd4f');
  // codeFile also turns off the key-name rule, as it turns off the JSON pass.
  assert.deepEqual(redactDeep({ password: 'hunter2' }, { codeFile: true }), { password: 'hunter2' });
});

test('redactDeep keeps own __proto__ keys as data and survives cycles', () => {
  const parsed = JSON.parse('{"__proto__": {"secret": "hunter2"}}') as Record<string, unknown>;
  const copy = redactDeep(parsed);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { secret: '***' });

  const cyclic: { self?: unknown; key: string } = { key: `DB_PASSWORD=hunter2` };
  cyclic.self = cyclic;
  const out = redactDeep(cyclic);
  assert.equal(out.key, 'DB_PASSWORD=***');
  assert.equal(out.self, out);
});

test('the field-name rule follows the mode: sentinels in file reads, again on in secret files', () => {
  assert.deepEqual(redactDeep({ password: 'hunter2hunter2' }, { fileRead: true }), { password: 'hunter2hunter2' }, 'a plain file read is code');
  assert.deepEqual(redactDeep({ password: 'hunter2hunter2', api_key: 'sk-thing' }, { fileRead: true, secretFile: true }), {
    password: '«redacted-secret»',
    api_key: '«redacted:sk-…»',
  });
  // Exact names only: max_tokens is not a token field, and an array index is no name at all.
  assert.deepEqual(redactDeep({ max_tokens: 'plenty', tokens: ['hunter2'] }), { max_tokens: 'plenty', tokens: ['hunter2'] });
  assert.deepEqual(redactDeep({ Password: 'hunter2' }), { Password: '***' }, 'names match in any case');
});

test('null-prototype objects and sparse arrays keep their shape; other objects pass through', () => {
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { token: 'abc' });
  const copy = redactDeep(bare);
  assert.equal(Object.getPrototypeOf(copy), null);
  assert.equal(copy.token, '***');
  const sparse = ['a', , `k ${GITHUB_PAT}`];
  const out = redactDeep(sparse);
  assert.equal(out.length, 3);
  assert.equal(1 in out, false);
  assert.equal(out[2], 'k ghp_R4...5678');
  const map = new Map([['password', 'hunter2']]);
  assert.equal(redactDeep({ map }).map, map, 'a Map is passed by reference, unredacted');
});

test('a structure shared twice is copied once and shared the same way', () => {
  const shared = { secret: 'hunter2' };
  const out = redactDeep({ a: shared, b: [shared] });
  assert.deepEqual(out.a, { secret: '***' });
  assert.equal(out.b[0], out.a);
  assert.notEqual(out.a, shared);
});
