import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { satisfies } from '@renovatebot/pep440';
import { approvalPolicy, STRUCTURAL_KEYS } from '../../../supervisor/tools/command-guards/index.js';
import { FIDELITY_DIR } from '../../fidelity/harness.js';
import { hermes, hermesEnv, runDriver } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';
import { loadExamples } from './pattern-examples.js';

// policy/dangerous-commands.json against the Hermes this test process runs (HERMES_TEST_PIN; both
// pins run this file): every rule that Hermes has, by the description it reports, has an entry
// attributed to it (`hermes`, a PEP 440 specifier), every entry attributed to it is one of its
// rules, in its order (so where two rules match, both name the same one), every description its
// checks outside the tables report is one the gateway knows, and every example of
// pattern-examples.yaml that applies to it gets from Hermes' own guards the verdict the table says.
// A Hermes release with a rule the gateway has not translated fails here until it is.

interface HermesRules {
  hardline: string[];
  dangerous: string[];
  structural: string[];
}

const temp = tempDirs();
const { version } = hermes();
const policy = approvalPolicy();
const examples = loadExamples();
let rules: HermesRules;
let home = '';
let env: Record<string, string> = {};

before(async () => {
  home = temp.make('hmcp-guard-rules-');
  mkdirSync(join(home, 'user'));
  // No managed scope: a real /etc/hermes must not change what this Hermes reports.
  env = hermesEnv(join(home, 'hermes'), { HOME: join(home, 'user'), HERMES_MANAGED_DIR: join(home, 'no-managed-scope') });
  mkdirSync(env.HERMES_HOME!);
  rules = await runDriver<HermesRules>(join(FIDELITY_DIR, 'drivers', 'guard_rules.py'), {}, env);
});
after(() => temp.removeAll());

const attributed = (list: 'hardline' | 'dangerous') => policy[list].filter((p) => p.hermes !== undefined && satisfies(version, p.hermes));
const unique = (keys: string[]) => [...new Set(keys)];

describe(`the gateway's rules against Hermes ${version}'s own`, () => {
  test('every rule of this Hermes has an entry attributed to it, and every entry attributed to it is one of its rules, in its order', () => {
    for (const list of ['hardline', 'dangerous'] as const) {
      const theirs = unique(rules[list]);
      const ours = unique(attributed(list).filter((p) => !p.commandOnly).map((p) => p.key));
      assert.deepEqual(theirs.filter((k) => !ours.includes(k)), [], `${list} rules of Hermes ${version} the gateway has no entry for`);
      assert.deepEqual(ours.filter((k) => !theirs.includes(k)), [], `${list} entries attributed to Hermes ${version} that it does not have`);
      assert.deepEqual(ours, theirs, `${list}: the order of the rules`);
    }
    assert.ok(rules.dangerous.length >= 70 && rules.hardline.length >= 12, 'the driver read the tables');
  });

  test("every description of this Hermes' checks outside its tables is one the gateway reports", () => {
    const known = new Set([...STRUCTURAL_KEYS, ...policy.hardline.filter((p) => p.commandOnly).map((p) => p.key)]);
    assert.deepEqual(rules.structural.filter((d) => !known.has(d)), []);
  });

  test('every example that applies to this Hermes gets the verdict the table gives', async () => {
    const applying = examples.filter((e) => (e.hermes === undefined || satisfies(version, e.hermes)) && (!e.flagged || attributed(e.list).some((p) => p.key === e.rule)));
    assert.ok(applying.length >= 150, `only ${applying.length} examples apply`);
    const answers = await runDriver<Array<{ id: string; result?: unknown; raised?: string }>>(
      join(FIDELITY_DIR, 'drivers', 'command_guards.py'),
      { cases: applying.map((e, i) => ({ id: String(i), command: e.command })) },
      env,
      120_000,
    );
    const got = new Map(answers.map((a) => [a.id, a.result ?? { raised: a.raised }]));
    const wrong = applying.flatMap((e, i) => (isDeepStrictEqual(got.get(String(i)), e.expected) ? [] : [`${e.rule}: ${JSON.stringify(e.command)} -> ${JSON.stringify(got.get(String(i)))}, the table says ${JSON.stringify(e.expected)}`]));
    assert.deepEqual(wrong, []);
  });
});
