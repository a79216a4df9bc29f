import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePyYaml } from '../../supervisor/platform/yaml.js';

// Hermes reads config.yaml and SKILL.md frontmatter with PyYAML (`yaml.safe_load`); the gateway
// must read the same values from them. Each expectation below is what PyYAML 6 answers for the
// line (checked with `python3 -c 'import yaml; print(yaml.safe_load(...))'`).

const CASES: Array<[string, unknown]> = [
  ['y', 'y'],
  ['n', 'n'],
  ['Y', 'Y'],
  ['yes', true],
  ['On', true],
  ['off', false],
  ['NO', false],
  ['1e3', '1e3'],
  ['1.0e+3', 1000],
  ['6.8523015e+5', 685230.15],
  ['.5', 0.5],
  ['.inf', Infinity],
  ['00:30', '00:30'],
  ['1:30', 90],
  ['190:20:30', 685230],
  ['09', '09'],
  ["'09'", '09'],
  ['0755', 493],
  ['0x1F', 31],
  ['1_000', 1000],
  ['+12', 12],
  ['~', null],
];

for (const [source, want] of CASES) {
  test(`PyYAML reads "${source}" as ${JSON.stringify(want) ?? String(want)}`, () => {
    assert.deepEqual((parsePyYaml(`v: ${source}\n`) as { v: unknown }).v, want);
  });
}

test('a duplicate key keeps its last value, as in PyYAML', () => {
  assert.deepEqual(parsePyYaml('dup: first\ndup: last\n'), { dup: 'last' });
});
