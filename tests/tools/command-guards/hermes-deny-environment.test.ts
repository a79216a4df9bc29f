import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { gatewayEnvironment } from '../../../supervisor/platform/environment.js';
import { checkCommand, commandContext } from '../../../supervisor/tools/command-guards/index.js';
import { hermes, hermesEnv } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';

// `${VAR}` in approvals.deny expands from the environment Hermes has once it loaded its .env files:
// its process environment, under $HERMES_HOME/.env, under the managed scope's .env (hermes_cli/
// env_loader.py load_hermes_dotenv, both with override, the managed one last). The same layout is
// judged by Hermes itself (the pin of this test process: load_hermes_dotenv, then tools.approval's
// _match_user_deny_rule, as a Hermes process does at startup and per command) and by the gateway
// started as its bin starts (gatewayEnvironment, loadConfig with hermesDotenv, the command guard).

const temp = tempDirs();
after(() => temp.removeAll());

interface Layout {
  /** The gateway's process environment (and Hermes'). */
  processEnv: Record<string, string>;
}

/** A Hermes home whose config.yaml (or else the managed scope's) holds `rules`; both .env files as given. */
function layout(rules: string[], where: 'user' | 'managed', files: { home: string; managed: string }, processEnv: Record<string, string>): Layout {
  const root = temp.make('hmcp-deny-env-');
  const home = join(root, 'hermes');
  const managed = join(root, 'managed');
  const user = join(root, 'user');
  for (const dir of [home, managed, user]) mkdirSync(dir);
  const yaml = `approvals:\n  deny:\n${rules.map((r) => `    - ${JSON.stringify(r)}\n`).join('')}`;
  writeFileSync(join(where === 'user' ? home : managed, 'config.yaml'), yaml);
  writeFileSync(join(home, '.env'), files.home, { mode: 0o600 });
  writeFileSync(join(managed, '.env'), files.managed, { mode: 0o600 });
  return { processEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: user, HERMES_HOME: home, HERMES_MANAGED_DIR: managed, ...processEnv } };
}

/** Per command, the deny rule Hermes blocks it with (null: none). */
function hermesVerdicts(l: Layout, commands: string[]): Record<string, string | null> {
  const script = [
    'import json, os, sys',
    'from hermes_cli.env_loader import load_hermes_dotenv',
    'load_hermes_dotenv(hermes_home=os.environ["HERMES_HOME"])',
    'try:',
    '    from tools.approval_floors import _match_user_deny_rule',
    'except ImportError:',
    '    from tools.approval import _match_user_deny_rule',
    'print(json.dumps({c: _match_user_deny_rule(c) for c in json.load(sys.stdin)}))',
  ].join('\n');
  const run = spawnSync(hermes().python, ['-c', script], { input: JSON.stringify(commands), encoding: 'utf8', env: hermesEnv(l.processEnv.HERMES_HOME!, l.processEnv), cwd: l.processEnv.HOME });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, string | null>;
}

/** Per command, the deny rule the gateway refuses it with (null: none). */
function gatewayVerdicts(l: Layout, commands: string[]): Record<string, string | null> {
  const { env, hermesDotenv } = gatewayEnvironment(l.processEnv);
  const config = loadConfig(env, { hermesDotenv });
  const out: Record<string, string | null> = {};
  for (const c of commands) {
    const verdict = checkCommand(c, commandContext(config));
    if (verdict.verdict === 'deny' && 'problem' in verdict) throw new Error(verdict.problem);
    out[c] = verdict.verdict === 'deny' ? verdict.rule : null;
  }
  return out;
}

const RULES = ['${DENY_TOOL} delete *', '${HOME_ONLY} run *', '${PROCESS_ONLY} up *'];
const FILES = { home: 'DENY_TOOL=helm\nHOME_ONLY=ansible\n', managed: 'DENY_TOOL=kubectl\n' };
const PROCESS = { DENY_TOOL: 'terraform', HOME_ONLY: 'nomad', PROCESS_ONLY: 'pulumi' };
const COMMANDS = ['kubectl delete pod web', 'helm delete release', 'terraform delete plan', 'ansible run site', 'nomad run job', 'pulumi up stack', 'echo fine'];

describe(`approvals.deny's \${VAR} against Hermes ${hermes().version}`, () => {
  test("the user's config.yaml: the managed .env over $HERMES_HOME/.env over the process environment", () => {
    const l = layout(RULES, 'user', FILES, PROCESS);
    const theirs = hermesVerdicts(l, COMMANDS);
    assert.deepEqual(theirs, {
      'kubectl delete pod web': 'kubectl delete *',
      'helm delete release': null,
      'terraform delete plan': null,
      'ansible run site': 'ansible run *',
      'nomad run job': null,
      'pulumi up stack': 'pulumi up *',
      'echo fine': null,
    });
    assert.deepEqual(gatewayVerdicts(l, COMMANDS), theirs);
  });

  test("the managed scope's config.yaml expands from the same environment", () => {
    const l = layout(RULES, 'managed', FILES, PROCESS);
    const theirs = hermesVerdicts(l, COMMANDS);
    assert.equal(theirs['kubectl delete pod web'], 'kubectl delete *');
    assert.equal(theirs['ansible run site'], 'ansible run *');
    assert.deepEqual(gatewayVerdicts(l, COMMANDS), theirs);
  });
});
