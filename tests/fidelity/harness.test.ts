import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDivergences, type ListedDivergence } from '../../scripts/differences-from-hermes.js';
import { holds, type Predicate } from '../../scripts/divergence-predicates.js';
import { hermes } from '../helpers/hermes.js';
import { coveredAt, Surface, valueAt } from './harness.js';

// The fidelity harness itself: each rule that makes a comparison fail is shown failing. The
// entries here are made up for the test (the surface name only has to be a real one).

const entry = (over: Partial<ListedDivergence> & Pick<ListedDivergence, 'fields'>): ListedDivergence => ({ id: 'made-up', surface: 'read_file', summary: 's', reason: 'r', ...over });
const surfaceWith = (...entries: ListedDivergence[]) => new Surface('read_file', {}, entries);

test('a differing field no entry covers is different; one an entry covers, with its predicate holding, is intended', () => {
  const s = surfaceWith(entry({ cases: ['c'], fields: { code: { equals: 'FILE_NOT_FOUND' } } }));
  assert.equal(s.judge('c', { error: 'x' }, { error: 'x' }).verdict, 'equal');
  assert.equal(s.judge('c', { error: 'x', code: 'FILE_NOT_FOUND' }, { error: 'x' }).verdict, 'divergent');
  assert.equal(s.judge('c', { error: 'y', code: 'FILE_NOT_FOUND' }, { error: 'x' }).verdict, 'different');
});

test('a covered field whose value is outside the predicate is different, and says which entry refused it', () => {
  const s = surfaceWith(entry({ fields: { code: { equals: 'FILE_NOT_FOUND' } } }));
  const v = s.judge('c', { code: 'FILE_BINARY' }, {});
  assert.equal(v.verdict, 'different');
  assert.match(v.refused.join('\n'), /made-up says `code` is `"FILE_NOT_FOUND"`; the gateway answered "FILE_BINARY"/);
  assert.match(s.problems().join('\n'), /read_file\/c \(mcp\) differs in code:\n {2}not as listed: made-up/);
});

test('a missing field is not any value: `absent` and the other predicates tell it apart', () => {
  const s = surfaceWith(entry({ fields: { hint: { equals: 'h' } } }));
  assert.equal(s.judge('c', {}, { hint: 'other' }).verdict, 'different');
  assert.equal(surfaceWith(entry({ fields: { hint: 'absent' } })).judge('c', {}, { hint: 'other' }).verdict, 'divergent');
  assert.equal(surfaceWith(entry({ fields: { hint: 'absent' } })).judge('c', { hint: 'mine' }, { hint: 'other' }).verdict, 'different');
});

test('an entry applies only to the cases, ways and Hermes versions it names', () => {
  const fields = { code: { equals: 'X' } };
  assert.equal(surfaceWith(entry({ cases: ['a'], fields })).judge('b', { code: 'X' }, {}).verdict, 'different');
  assert.equal(surfaceWith(entry({ via: ['mcp_wide_cap'], fields })).judge('a', { code: 'X' }, {}, 'mcp').verdict, 'different');
  assert.equal(surfaceWith(entry({ via: ['mcp_wide_cap'], fields })).judge('a', { code: 'X' }, {}, 'mcp_wide_cap').verdict, 'divergent');
  const other = hermes().version.startsWith('0.19') ? '>=0.20' : '<0.20';
  assert.equal(surfaceWith(entry({ hermes: other, fields })).judge('a', { code: 'X' }, {}).verdict, 'different');
});

test('a case an entry lists must show it: an answer that became equal to Hermes\' is reported', () => {
  const s = surfaceWith(entry({ cases: ['a', 'b', 'c'], fields: { allowed: { equals: false } } }));
  s.judge('a', { allowed: false }, { allowed: true });
  s.judge('b', { allowed: true }, { allowed: true });
  const problems = s.problems().join('\n');
  assert.match(problems, /made-up lists the case b, which does not show it \(mcp: equal\); remove it from the list/);
  assert.match(problems, /made-up lists the case c, which was not compared/);
  assert.doesNotMatch(problems, /case a/);
});

test('a case shows every entry whose predicate holds for its differing fields, not only the first', () => {
  const a = entry({ id: 'first', fields: { code: { pattern: '[A-Z_]+' } } });
  const b = entry({ id: 'second', cases: ['c'], fields: { code: { equals: 'FILE_NOT_FOUND' } } });
  const s = surfaceWith(a, b);
  assert.deepEqual(s.judge('c', { code: 'FILE_NOT_FOUND' }, {}).divergences, ['first', 'second']);
  assert.deepEqual(s.problems().filter((p) => /first|second/.test(p)), []);
});

test('an entry no case shows is reported', () => {
  const s = surfaceWith(entry({ fields: { code: { equals: 'X' } } }));
  s.judge('a', { n: 1 }, { n: 1 });
  assert.match(s.problems().join('\n'), /the listed divergence made-up is not shown by any case/);
});

test('a check an entry names must be provided by the surface, and computes the value', () => {
  const e = entry({ fields: { n: { check: 'double' } } });
  assert.match(surfaceWith(e).problems().join('\n'), /made-up names the check double, which this surface does not provide/);
  const s = new Surface('read_file', { double: (c) => c.gateway === 2 * (c.hermes as number) }, [e]);
  assert.equal(s.judge('a', { n: 4 }, { n: 2 }).verdict, 'divergent');
  assert.equal(s.judge('a', { n: 5 }, { n: 2 }).verdict, 'different');
});

test('a pattern covers the path and what is below it; the predicate sees the value at the matched path', () => {
  assert.equal(coveredAt('results.*.messages', 'results.0.messages.1.text'), 'results.0.messages');
  assert.equal(coveredAt('results.*.messages', 'results.0.title'), undefined);
  assert.equal(coveredAt('.', 'a.b'), '.');
  assert.equal(coveredAt('a', '.'), undefined);
  assert.deepEqual(valueAt({ results: [{ messages: [1] }] }, 'results.0.messages'), [1]);
  const s = surfaceWith(entry({ fields: { 'results.*.messages': { equals: [] } } }));
  assert.equal(s.judge('a', { results: [{ messages: [] }] }, { results: [{ messages: [{ t: 1 }] }] }).verdict, 'divergent');
  assert.equal(s.judge('a', { results: [{ messages: [{ t: 2 }] }] }, { results: [{ messages: [{ t: 1 }] }] }).verdict, 'different');
});

test('each predicate holds for the value it states and fails for another', () => {
  const at = (p: Predicate, gateway: unknown, hermesValue?: unknown, caseId = 'a') => holds(p, { caseId, via: 'mcp', field: 'f', gateway, hermes: hermesValue, gatewayAnswer: {}, hermesAnswer: {}, checks: {} });
  const table: Array<[Predicate, unknown, unknown, unknown, string?]> = [
    // predicate, a value it takes, a value it refuses, Hermes' value
    ['absent', undefined, null, 1],
    [{ equals: { a: [1] } }, { a: [1] }, { a: [2] }, undefined],
    [{ 'one-of': ['A', 'B'] }, 'B', 'C', undefined],
    [{ pattern: 'FILE_[A-Z]+' }, 'FILE_BINARY', 'XFILE_BINARY', undefined],
    [{ 'hermes-plus': 1 }, 51, 52, 50],
    [{ 'hermes-replaced': [[' Use vision_analyze[^.]*\\.', '']] }, 'Binary file.', 'File not found.', 'Binary file. Use vision_analyze to see it.'],
    [{ 'hermes-absent': { equals: true } }, true, false, undefined],
    [{ 'by-case': { a: { equals: 1 }, b: { equals: 2 } } }, 1, 2, undefined],
    [{ any: [{ equals: 1 }, 'absent'] }, undefined, 2, undefined],
    [{ all: [{ pattern: '\\d+' }, { 'one-of': ['1', '22'] }] }, '22', '3', undefined],
  ];
  for (const [p, good, bad, h] of table) {
    assert.equal(at(p, good, h), true, `${JSON.stringify(p)} takes ${JSON.stringify(good)}`);
    assert.equal(at(p, bad, h), false, `${JSON.stringify(p)} refuses ${JSON.stringify(bad)}`);
  }
  // hermes-absent fails where Hermes has the field; by-case fails for a case it does not name.
  assert.equal(at({ 'hermes-absent': { equals: true } }, true, false), false);
  assert.equal(at({ 'by-case': { a: { equals: 1 } } }, 1, undefined, 'z'), false);
});

test('an entry that does not pin its fields is refused when the file is read', () => {
  const refused = (yaml: string, why: RegExp) => assert.throws(() => parseDivergences(yaml, 'read_file.yaml'), why);
  const head = '- id: e\n  surface: read_file\n  summary: s\n  reason: r\n';
  refused(`${head}  fields: {}\n`, /names no fields/);
  refused(head, /names no fields/);
  refused(`${head}  fields: [code, error]\n`, /names no fields/);
  refused(`${head}  fields:\n    code: {pattern: '.*'}\n`, /accepts any value/);
  refused(`${head}  fields:\n    code: {pattern: '(?:x|).{0,}'}\n`, /accepts any value/);
  refused(`${head}  fields:\n    error: {pattern: 'Binary file .+'}\n`, /does not pin a broad field/);
  refused(`${head}  fields:\n    results.*.messages: {any: [absent, {pattern: 'a.+'}]}\n`, /does not pin a broad field/);
  refused(`${head}  fields:\n    code: {equal: X}\n`, /a predicate has one of the keys/);
  refused(`${head}  fields:\n    code: {one-of: [X]}\n`, /at least two values/);
  refused(`${head}  fields:\n    n: {hermes-plus: 0}\n`, /non-zero number/);
  refused(`${head}  when: hides-all\n  fields:\n    code: absent\n`, /unknown key when/);
  refused(`${head}  cases: []\n  fields:\n    code: absent\n`, /cases is a non-empty list/);
  assert.equal(parseDivergences(`${head}  fields:\n    code: {pattern: 'FILE_[A-Z_]+'}\n`, 'read_file.yaml').length, 1);
});
