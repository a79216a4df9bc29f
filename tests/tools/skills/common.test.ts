import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAborted, cmp, isRecord, sortSkills } from '../../../supervisor/tools/skills/common.js';

test('isRecord: plain mappings only (not arrays, null or dates, as YAML may give them)', () => {
  assert.deepEqual([{}, { a: 1 }, [], null, new Date(0), 'x'].map(isRecord), [true, true, false, false, false, false]);
});

test('checkAborted: CANCELLED once the signal is aborted, nothing before or without one', () => {
  const controller = new AbortController();
  checkAborted(undefined);
  checkAborted(controller.signal);
  controller.abort();
  assert.throws(() => checkAborted(controller.signal), { name: 'GatewayError', code: 'CANCELLED', message: 'skills call cancelled' });
});

test('cmp and sortSkills: code-point order, by category (none first) then name; the input left as it was', () => {
  assert.deepEqual(['b', 'B', 'a', 'é'].sort(cmp), ['B', 'a', 'b', 'é']);
  assert.equal(cmp('x', 'x'), 0);
  const skills = [
    { name: 'zeta', description: '', category: 'tools' },
    { name: 'alpha', description: '', category: 'tools' },
    { name: 'Beta', description: '', category: null },
    { name: 'gamma', description: '', category: 'Data' },
  ];
  assert.deepEqual(sortSkills(skills).map((s) => s.name), ['Beta', 'gamma', 'alpha', 'zeta']);
  assert.equal(skills[0]!.name, 'zeta');
});

