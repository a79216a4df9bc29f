import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { connect, openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

// The approval guard through real MCP calls. Every command sent here is harmless if the guard
// failed: the hardline one is `touch <marker> && true || rm -rf /` (the `||` branch cannot run
// after `true`) and the dangerous ones run in a fresh directory that is not a git repository
// (GIT_DIR points at nothing, so `git reset --hard` could only fail). The markers prove the
// refused commands never started.

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('approval guard through tool_call', () => {
  let gw: TestGateway;
  let n = 0;
  before(async () => {
    gw = await startTestGateway({ limits: { executeCodeDeadlineSeconds: 20 } });
  });
  after(async () => {
    await gw.close();
  });

  /** A fresh, empty directory inside the allowed roots (gw.home is a temp dir, not a repository). */
  function scratch(): string {
    const dir = join(gw.home, `approval-${++n}`);
    mkdirSync(dir);
    return dir;
  }
  const hardlineCommand = (marker: string) => `touch ${sh(marker)} && true || rm -rf /`;
  const noRepo = (dir: string) => `cd ${sh(dir)} && export GIT_DIR=${sh(join(dir, 'no-such-repo'))} GIT_CEILING_DIRECTORIES=${sh(dir)}`;

  test('execute_code: hermes_tools.terminal commands needing approval are denied, never run; benign ones still work', async () => {
    const dir = scratch();
    const hardMarker = join(dir, 'hardline-ran');
    const resetMarker = join(dir, 'reset-ran');
    const code = [
      'from hermes_tools import terminal',
      'import json',
      `print(json.dumps(terminal(${JSON.stringify(hardlineCommand(hardMarker))})))`,
      `print(json.dumps(terminal(${JSON.stringify(`${noRepo(dir)} && touch ${sh(resetMarker)} && git reset --hard`)})))`,
      // The denial grants nothing: the same command asked again is denied again.
      `print(json.dumps(terminal(${JSON.stringify(`${noRepo(dir)} && touch ${sh(resetMarker)} && git reset --hard`)})))`,
      // Quoted text counts, as in Hermes: this would only print, but it reads as `rm -rf /`.
      `print(json.dumps(terminal(${JSON.stringify('echo "rm -rf /"')})))`,
      `print(json.dumps(terminal(${JSON.stringify(`cd ${sh(dir)} && echo benign > ok.txt && cat ok.txt`)})))`,
    ].join('\n');
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'execute_code', { code });
    await client.close();
    assert.equal(r.data.status, 'success', String(r.data.output));
    const [hard, reset, again, quoted, benign] = String(r.data.output).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

    assert.deepEqual(Object.keys(hard!).sort(), ['error', 'exit_code', 'output', 'status']);
    assert.equal(hard!.status, 'blocked');
    assert.equal(hard!.output, '');
    assert.equal(hard!.exit_code, -1);
    assert.match(String(hard!.error), /^Command denied: recursive delete of root filesystem\. execute_code scripts get no further approvals; .*hardline/);

    for (const denied of [reset!, again!]) {
      assert.deepEqual(denied, {
        output: '',
        exit_code: -1,
        error: String(denied.error),
        status: 'blocked',
      });
      assert.match(String(denied.error), /^Command denied: git reset --hard \(destroys uncommitted changes\)\. execute_code scripts get no further approvals; /);
    }
    assert.equal(quoted!.status, 'blocked');
    assert.match(String(quoted!.error), /^Command denied: delete in root path\./);

    // The gateway follows the newest Hermes here (none installed), whose terminal says where a command that changed directory ended.
    assert.deepEqual(benign, { output: 'benign', exit_code: 0, error: null, cwd: dir });
    assert.equal(existsSync(hardMarker), false, 'the hardline command never ran');
    assert.equal(existsSync(resetMarker), false, 'the git reset --hard command never ran');
    assert.equal(existsSync(join(dir, 'ok.txt')), true);
  });

  test('direct terminal: a hardline command is refused with COMMAND_BLOCKED before execution', async () => {
    const dir = scratch();
    const marker = join(dir, 'ran');
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'terminal', { command: hardlineCommand(marker) }, token);
    assert.equal(r.isError, true);
    assert.equal(r.data.error, 'COMMAND_BLOCKED');
    assert.equal(r.data.pattern_key, 'recursive delete of root filesystem');
    assert.match(String(r.data.message), /^BLOCKED \(hardline\): recursive delete of root filesystem\./);
    // Refused first, whatever else the call asks for.
    const background = await viaBridge(client, 'terminal', { command: hardlineCommand(marker), background: true }, token);
    assert.equal(background.data.error, 'COMMAND_BLOCKED');
    assert.equal(existsSync(marker), false, 'nothing ran');
    // The owner's terminal is unaffected.
    const next = await viaBridge(client, 'terminal', { command: 'echo still-here' }, token);
    assert.deepEqual(next.data, { output: 'still-here', exit_code: 0, error: null });
    await client.close();
  });

  test('direct terminal: dangerous-but-not-hardline commands run (the host confirms write tools)', async () => {
    const dir = scratch();
    const file = join(dir, 'perm.txt');
    writeFileSync(file, 'x\n');
    chmodSync(file, 0o644);
    const { client, token } = await openSession(gw.mcpUrl);
    const chmod = await viaBridge(client, 'terminal', { command: `chmod 777 ${sh(file)}` }, token);
    assert.deepEqual(chmod.data, { output: '', exit_code: 0, error: null });
    assert.equal(statSync(file).mode & 0o777, 0o777);
    const reset = await viaBridge(client, 'terminal', { command: `${noRepo(dir)} && touch ran && git reset --hard` }, token);
    assert.equal(reset.isError, false);
    assert.notEqual(reset.data.exit_code, 0, 'git found no repository');
    assert.equal(existsSync(join(dir, 'ran')), true, 'the command ran');
    const quoted = await viaBridge(client, 'terminal', { command: 'echo "rm -rf /"' }, token);
    assert.deepEqual(quoted.data, { output: 'rm -rf /', exit_code: 0, error: null });
    await client.close();
  });
});

// The operator's approvals.deny rules in Hermes' config.yaml, through real MCP calls. Every denied
// command would only touch a marker file: the markers prove it never ran.
describe("the operator's approvals.deny rules through tool_call", () => {
  let gw: TestGateway;
  let configFile = '';
  let original = '';
  before(async () => {
    gw = await startTestGateway({ limits: { executeCodeDeadlineSeconds: 20 } });
    configFile = join(gw.home, 'config.yaml');
    original = existsSync(configFile) ? readFileSync(configFile, 'utf8') : '';
  });
  after(async () => {
    await gw.close();
  });

  /** config.yaml as Hermes wrote it, with `approvals.deny` set to `deny`. */
  function setDeny(deny: unknown): void {
    const doc = (parse(original) ?? {}) as Record<string, unknown>;
    writeFileSync(configFile, stringify({ ...doc, approvals: { ...((doc.approvals as Record<string, unknown> | undefined) ?? {}), deny } }));
  }
  const withRules = (rules: string[]) => setDeny(rules);

  test('terminal refuses a matching command with COMMAND_DENIED naming the rule; an edit applies to the next call, without a restart', async () => {
    const dir = join(gw.home, 'deny-terminal');
    mkdirSync(dir);
    const marker = join(dir, 'ran');
    withRules(['*deny-me*']);
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'terminal', { command: `touch ${sh(marker)} # deny-me` }, token);
    assert.equal(r.isError, true);
    assert.deepEqual(Object.keys(r.data).sort(), ['config_file', 'deny_rule', 'error', 'message', 'source']);
    assert.equal(r.data.error, 'COMMAND_DENIED');
    assert.equal(r.data.deny_rule, '*deny-me*');
    assert.equal(r.data.source, 'approvals.deny');
    assert.equal(r.data.config_file, configFile);
    assert.match(String(r.data.message), /^BLOCKED: this command matches the operator's deny rule '\*deny-me\*' \(approvals\.deny in Hermes' config\.yaml, .*\)\. .*Do not retry or rephrase it/);
    assert.equal(existsSync(marker), false, 'nothing ran');
    // Taken out of the rules: the next call runs it.
    withRules(['*something-else*']);
    const again = await viaBridge(client, 'terminal', { command: `touch ${sh(marker)} # deny-me` }, token);
    assert.deepEqual(again.data, { output: '', exit_code: 0, error: null });
    assert.equal(existsSync(marker), true);
    await client.close();
  });

  test('a deny that is not a list of strings refuses every command, saying why', async () => {
    setDeny('git push*');
    const { client, token } = await openSession(gw.mcpUrl);
    const r = await viaBridge(client, 'terminal', { command: 'echo harmless' }, token);
    assert.equal(r.data.error, 'COMMAND_DENIED');
    assert.match(String(r.data.problem), /approvals\.deny in .*config\.yaml must be a list of glob strings, but it is a string/);
    assert.match(String(r.data.message), /Every command is refused until the operator fixes approvals\.deny/);
    withRules([]);
    const fixed = await viaBridge(client, 'terminal', { command: 'echo harmless' }, token);
    assert.deepEqual(fixed.data, { output: 'harmless', exit_code: 0, error: null });
    await client.close();
  });

  test("execute_code: hermes_tools.terminal answers status blocked for a denied command, as for Hermes' other refusals", async () => {
    const dir = join(gw.home, 'deny-execute');
    mkdirSync(dir);
    const marker = join(dir, 'ran');
    withRules(['*deny-me*']);
    const code = ['from hermes_tools import terminal', 'import json', `print(json.dumps(terminal(${JSON.stringify(`touch ${sh(marker)} # deny-me`)})))`].join('\n');
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'execute_code', { code });
    await client.close();
    assert.equal(r.data.status, 'success', String(r.data.output));
    const answer = JSON.parse(String(r.data.output).trim()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(answer).sort(), ['error', 'exit_code', 'output', 'status']);
    assert.equal(answer.status, 'blocked');
    assert.equal(answer.exit_code, -1);
    assert.match(String(answer.error), /^Command denied: deny rule '\*deny-me\*'\. execute_code scripts get no further approvals; BLOCKED: this command matches the operator's deny rule/);
    assert.equal(existsSync(marker), false);
  });

  test('job_prepare refuses a denied command; job_start judges the prepared one again, so a rule added since refuses it and the job stays prepared', async () => {
    const dir = join(gw.home, 'deny-jobs');
    mkdirSync(dir);
    withRules(['*deny-me*']);
    const { client, token } = await openSession(gw.mcpUrl);
    const refused = await viaBridge(client, 'job_prepare', { command: `touch ${sh(join(dir, 'a'))} # deny-me`, workdir: dir }, token);
    assert.equal(refused.data.error, 'COMMAND_DENIED');
    assert.equal(refused.data.deny_rule, '*deny-me*');
    assert.match(String(refused.data.message), /\(nothing was prepared\)$/);

    const later = join(dir, 'later');
    const prep = await viaBridge(client, 'job_prepare', { command: `touch ${sh(later)} # deploy-later`, workdir: dir }, token);
    assert.equal(prep.isError, false, JSON.stringify(prep.data));
    const job = { job_id: prep.data.job_id as string, recovery_token: prep.data.recovery_token as string };
    withRules(['*deny-me*', '*deploy-later*']);
    const start = await viaBridge(client, 'job_start', job, token);
    assert.equal(start.data.error, 'COMMAND_DENIED');
    assert.equal(start.data.deny_rule, '*deploy-later*');
    assert.match(String(start.data.message), /\(the job was not started and stays prepared\)$/);
    const status = await viaBridge(client, 'job_status', job, token);
    assert.equal(status.data.state, 'prepared');
    // The rule lifted: the same prepared job starts.
    withRules(['*deny-me*']);
    const started = await viaBridge(client, 'job_start', job, token);
    assert.equal(started.isError, false, JSON.stringify(started.data));
    let done = await viaBridge(client, 'job_status', { ...job, wait_seconds: 5 }, token);
    for (let i = 0; i < 10 && done.data.state !== 'succeeded'; i++) done = await viaBridge(client, 'job_status', { ...job, wait_seconds: 5 }, token);
    assert.equal(done.data.state, 'succeeded');
    assert.equal(existsSync(later), true);
    await client.close();
  });
});
