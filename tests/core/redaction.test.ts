import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactBeforeCut, redactOutbound, redactStructureBeforeCut, redactWindow } from '../../supervisor/core/redaction.js';

const OPENAI_KEY = 'sk-' + 'proj-' + 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f';

test('text redacted before a cut: the key is masked whole, so no cut can leave part of it readable', () => {
  const text = `deploy with ${OPENAI_KEY} tonight`;
  const redacted = redactBeforeCut(text);
  assert.equal(redacted, 'deploy with sk-pro...Cd4f tonight');
  assert.ok(!redacted.slice(0, 20).includes('Ab3dEf6hIj9l'));
  assert.equal(redactBeforeCut('nothing secret here'), 'nothing secret here');
});

test('a structure redacted before a cut: every string, by field name too, and the input is not modified', () => {
  const calls = [{ function: { name: 'terminal', arguments: `{"command": "curl -H 'Authorization: Bearer ${OPENAI_KEY}'"}` } }, { password: 'hunter2hunter2' }];
  const copy = structuredClone(calls);
  const out = redactStructureBeforeCut(calls);
  assert.deepEqual(calls, copy);
  assert.ok(!JSON.stringify(out).includes('Ab3dEf6hIj9l'));
  assert.ok(!JSON.stringify(out).includes('hunter2hunter2'));
  assert.equal(out[0]!.function!.name, 'terminal');
});

test('a window that lost the prefix of a key: the rest of the key is masked because the whole source shows it is one', () => {
  const source = `the key is ${OPENAI_KEY} keep it`;
  // The window starts inside the key: on its own the redactor sees no `sk-` prefix.
  const window = `${OPENAI_KEY.slice(8)} keep it`;
  assert.equal(redactWindow(window, null), window, 'without the source nothing marks it as a key');
  const out = redactWindow(window, source);
  assert.ok(!out.includes(OPENAI_KEY.slice(8)), out);
  assert.match(out, /\*\*\* keep it$/);
});

test('a window of a clean source keeps every word, and a key wholly inside the window is masked (its body by the source rule first)', () => {
  assert.equal(redactWindow('>>>deploy<<< the service', 'we deploy the service on friday'), '>>>deploy<<< the service');
  assert.equal(redactWindow(`use ${OPENAI_KEY}`, `use ${OPENAI_KEY}`), 'use sk-proj-***');
});

test('outbound text is redacted as tool output', () => {
  assert.equal(redactOutbound(`Honcho said: bad key ${OPENAI_KEY}`), 'Honcho said: bad key sk-pro...Cd4f');
  assert.equal(redactOutbound('Honcho at http://127.0.0.1:8000 is unreachable'), 'Honcho at http://127.0.0.1:8000 is unreachable');
});
