import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { approvalPolicy, checkCommand, type CommandHomes } from '../../../supervisor/tools/command-guards/index.js';
import { loadExamples } from './pattern-examples.js';

// Every rule of policy/dangerous-commands.json against its examples (pattern-examples.yaml), in the
// gateway alone: the rule on its own flags each of its examples with its key (so a translation that
// stopped matching is caught even where an earlier rule reads the command first), the whole guard
// reports each example's verdict, and no look-alike is flagged. hermes-rules.test.ts checks the same
// examples against each Hermes the tests run.

const HOMES: CommandHomes = { userHome: '/home/alice', hermesHome: '/home/alice/.hermes' };
const examples = loadExamples();
const policy = approvalPolicy();

describe('pattern examples', () => {
  test('every rule has a flagged example, and every example names a rule', () => {
    for (const list of ['hardline', 'dangerous'] as const) {
      const keys = new Set(policy[list].map((p) => p.key));
      const flagged = new Set(examples.filter((e) => e.list === list && e.flagged).map((e) => e.rule));
      for (const key of keys) assert.ok(flagged.has(key), `${list} "${key}" has no flagged example`);
      for (const e of examples.filter((x) => x.list === list)) assert.ok(keys.has(e.rule), `an example names ${list} "${e.rule}", which the policy does not have`);
    }
    // Every rule newer than 0.19 also has a look-alike that stays allowed.
    for (const p of policy.dangerous.filter((x) => x.hermes !== '>=0.19.0')) {
      assert.ok(examples.some((e) => e.rule === p.key && !e.flagged), `"${p.key}" has no allowed look-alike`);
    }
  });

  test('each rule on its own flags its examples with its key', () => {
    const wrong: string[] = [];
    for (const e of examples.filter((x) => x.flagged)) {
      const own = { hardline: e.list === 'hardline' ? policy.hardline.filter((p) => p.key === e.rule) : [], dangerous: e.list === 'dangerous' ? policy.dangerous.filter((p) => p.key === e.rule) : [] };
      const got = checkCommand(e.command, HOMES, own);
      if (got.verdict !== e.list || !('key' in got) || got.key !== e.rule) wrong.push(`${e.rule}: ${JSON.stringify(e.command)} -> ${JSON.stringify(got)}`);
    }
    assert.deepEqual(wrong, []);
  });

  test('the whole guard reports each example as the table says, look-alikes allowed', () => {
    const wrong = examples.map((e) => [e, checkCommand(e.command, HOMES)] as const).filter(([e, got]) => !isDeepStrictEqual(got, e.gateway));
    assert.deepEqual(wrong.map(([e, got]) => `${e.rule}: ${JSON.stringify(e.command)} -> ${JSON.stringify(got)}, expected ${JSON.stringify(e.gateway)}`), []);
  });
});
