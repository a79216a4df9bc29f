import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fidelityTable, type FidelityTally, type MutationScore } from '../../scripts/fidelity-report.js';

// The fidelity suite's end-of-run table: a row per surface, a column group per Hermes compared with
// (the oldest pin first), totals per column, and a dash where a surface was not compared with one;
// the mutation score (scripts/mutation-test.ts) under it when a mutation run wrote one.

const tally = (surface: string, pin: string, hermes: string, equal: number, divergent: number, different: number): FidelityTally => ({ surface, pin, hermes, cases: equal + divergent + different, comparisons: equal + divergent + different, equal, divergent, different });

test('one column group per Hermes, oldest first, with totals', () => {
  const table = fidelityTable([tally('read_file', 'newest', '0.22.2.post1', 50, 10, 0), tally('read_file', 'oldest', '0.19.0', 55, 5, 0), tally('terminal', 'oldest', '0.19.0', 40, 0, 1)], undefined);
  const lines = table.trimEnd().split('\n');
  assert.match(lines[0]!, /^Fidelity to Hermes/);
  assert.ok(lines[1]!.indexOf('Hermes 0.19.0 (oldest)') < lines[1]!.indexOf('Hermes 0.22.2.post1 (newest)'), lines[1]);
  assert.deepEqual(lines[2]!.split(/\s+/), ['surface', 'cases', 'comparisons', 'equal', 'intended', 'different', 'cases', 'comparisons', 'equal', 'intended', 'different']);
  assert.deepEqual(lines[3]!.split(/\s+/), ['read_file', '60', '60', '55', '5', '0', '60', '60', '50', '10', '0']);
  assert.deepEqual(lines[4]!.split(/\s+/), ['terminal', '41', '41', '40', '0', '1', '-', '-', '-', '-', '-']);
  assert.deepEqual(lines[5]!.split(/\s+/), ['total', '101', '101', '95', '5', '1', '60', '60', '50', '10', '0']);
});

test('nothing compared: no table', () => {
  assert.equal(fidelityTable([], undefined), '');
});

test('the mutation score under the table, naming what was not caught', () => {
  const score: MutationScore = { caught: 3, selected: 5, survived: ['read-file-x'], broken: ['terminal-y'], selection: 'share 2/8' };
  const lines = fidelityTable([tally('read_file', 'oldest', '0.19.0', 55, 5, 0)], score).trimEnd().split('\n');
  assert.equal(lines.at(-1), 'mutation score: 3/5 caught (tests/fidelity/mutations.yaml, share 2/8); survived: read-file-x; broken: terminal-y');
  assert.equal(lines.at(-2)!.split(/\s+/)[0], 'total');
  assert.equal(fidelityTable([], { ...score, caught: 5, survived: [], broken: [] }), 'mutation score: 5/5 caught (tests/fidelity/mutations.yaml, share 2/8)\n');
});
