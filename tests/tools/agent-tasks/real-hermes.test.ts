import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { messageText, startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, bridgeToolCaller, lastUserText, makeBridgeDeployment, modelMessages, runsIdempotent, startRealHermesApi, systemText, type BridgeDeployment, type RealHermesApi } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The bridge profile against Hermes' real API server (gateway/platforms/api_server.py, started as
// `hermes gateway run`), whose model is a scripted OpenAI-compatible server: real agent turns run in
// Hermes, and each test reads what the model was sent (the contract, the task, the session history,
// the tool results). Nothing leaves loopback: the egress trap must stay empty.

const CONTRACT = '# Bridge contract\nAnswer only JSON {summary, artifacts, next_steps}. CONTRACT-MARK-7f3a\n';

const answer = (summary: string, artifacts?: string[]) => JSON.stringify({ summary, ...(artifacts ? { artifacts } : {}), next_steps: [] });

describe('bridge profile against the real Hermes API server', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  /** Whether this Hermes' POST /v1/runs honours Idempotency-Key (its /v1/capabilities says). */
  let idempotent = false;

  before(async () => {
    const dir = temp.make('hmcp-real-hermes-');
    model = await startScriptedModel({ fallback: { text: 'OK' } });
    hermes = await startRealHermesApi(dir, { model, config: { gateway: { api_server: { max_concurrent_runs: 1 } } } });
    idempotent = await runsIdempotent(hermes);
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile, contract: CONTRACT });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 10_000, bridgeSyncTimeoutSeconds: 120 } });
  });
  after(async () => {
    await gw?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });

  const { call, ok } = bridgeToolCaller(() => gw.url, () => fx.token);
  const requestsFor = (id: string) => model.chatRequests().filter(agentTurnFor(id));

  test('a sync task: a real agent turn whose model request carries the contract and the task; the reply becomes result.json', async () => {
    model.push({ when: agentTurnFor('real-sync-1'), text: answer('sync done by the scripted model') });
    const r = await ok('hermes_task', { task: 'Say hello', mode: 'sync', id: 'real-sync-1', constraints: ['be brief'] });
    assert.equal(r.status, 'completed');
    assert.equal(r.summary, 'sync done by the scripted model');
    const [sent] = requestsFor('real-sync-1');
    assert.ok(sent, 'the model received the task');
    assert.match(systemText(sent), /CONTRACT-MARK-7f3a/);
    assert.match(lastUserText(sent), /## Task\nSay hello/);
    assert.match(lastUserText(sent), /- be brief/);
    const result = await ok('hermes_result', { id: 'real-sync-1' });
    assert.equal(result.summary, 'sync done by the scripted model');
    assert.deepEqual(hermes.egress, []);
  });

  test("a scripted write_file call runs in Hermes: the file lands in the task directory, hermes_files reads it, the model saw the tool's result", async () => {
    const id = 'real-tool-1';
    const path = join(fx.tasksDir, id, 'report.md');
    model.push(
      { when: (r) => agentTurnFor(id)(r) && modelMessages(r).at(-1)?.role === 'user', toolCalls: [{ name: 'write_file', arguments: { path, content: '# Report\nwritten by Hermes write_file\n' } }] },
      { when: (r) => agentTurnFor(id)(r) && modelMessages(r).at(-1)?.role === 'tool', text: answer('wrote the report', ['report.md']) },
    );
    const r = await ok('hermes_task', { task: 'Write a report file', mode: 'sync', id });
    assert.equal(r.status, 'completed');
    assert.deepEqual(r.artifacts, ['report.md']);
    assert.equal(readFileSync(path, 'utf8'), '# Report\nwritten by Hermes write_file\n');
    const turns = requestsFor(id);
    assert.equal(turns.length, 2);
    const toolResult = modelMessages(turns[1]!).at(-1)!;
    assert.equal(toolResult.role, 'tool');
    assert.match(messageText(toolResult.content), /bytes_written|success|report\.md/i);
    const listing = await ok('hermes_files', { id });
    assert.ok((listing.entries as Array<{ name: string }>).some((e) => e.name === 'report.md'), JSON.stringify(listing));
    const file = await ok('hermes_files', { id, path: 'report.md' });
    assert.equal(file.content, '# Report\nwritten by Hermes write_file\n');
  });

  test('one session: X-Hermes-Session-Id makes Hermes load the earlier task from its state.db, and concurrent calls are serialised', async () => {
    model.push(
      { when: agentTurnFor('real-sess-a'), text: answer('first answer ALPHA-1'), delayMs: 800 },
      { when: agentTurnFor('real-sess-b'), text: answer('second answer') },
    );
    const a = ok('hermes_task', { task: 'Remember ALPHA', mode: 'sync', id: 'real-sess-a', session: 's1' });
    // B is sent while A is still being answered; the bridge holds it until A is done.
    await waitFor(() => requestsFor('real-sess-a').length === 1, 30_000, 'the model to receive task A');
    const b = ok('hermes_task', { task: 'What did I ask first?', mode: 'sync', id: 'real-sess-b', session: 's1' });
    await Promise.all([a, b]);
    const [first] = requestsFor('real-sess-a');
    const [second] = requestsFor('real-sess-b');
    assert.ok(first && second);
    // A's turn (asked and answered) is history in B's request: Hermes ran B after A, in one session.
    const history = modelMessages(second).map((m) => messageText(m.content)).join('\n');
    assert.match(history, /Remember ALPHA/);
    assert.match(history, /first answer ALPHA-1/);
    assert.ok(second.at >= first.at + 800, 'B reached the model only after A was answered');
    // A task outside the session has none of that history.
    assert.doesNotMatch(modelMessages(requestsFor('real-sync-1')[0]!).map((m) => messageText(m.content)).join('\n'), /ALPHA/);
  });

  test('an async task: /v1/runs accepts it, hermes_status follows the run to completed, the run had the contract; a repeat is the same run, a different task under the id is refused', async () => {
    const id = 'real-async-1';
    model.push({ when: agentTurnFor(id), text: answer('async done'), delayMs: 300 });
    const accepted = await ok('hermes_task', { task: 'Work in the background', mode: 'async', id });
    assert.equal(accepted.status, 'accepted');
    const runId = String(accepted.run_id);
    assert.match(runId, /^run_[0-9a-f]{32}$/);
    const run = JSON.parse(readFileSync(join(fx.tasksDir, id, 'run.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(run.run_id, runId);
    assert.equal(run.agent_base_url, hermes.url);

    const repeat = await ok('hermes_task', { task: 'Work in the background', mode: 'async', id });
    assert.equal(repeat.run_id, runId);
    const conflict = await call('hermes_task', { task: 'Something else entirely', mode: 'async', id });
    assert.equal(conflict.isError, true);
    assert.equal(conflict.data.error, 'duplicate_id');

    const states: string[] = [];
    const done = await waitFor(
      async () => {
        const s = await ok('hermes_status', { run_id: runId });
        states.push(String(s.status));
        return s.terminal === true ? s : undefined;
      },
      60_000,
      'the run to end',
      100,
    );
    assert.equal(done.status, 'completed');
    assert.equal(done.output, answer('async done'));
    assert.equal(done.result_updated, true);
    assert.equal(done.task_id, id);
    assert.equal(done.session_id, `gb-task-${id}`);
    assert.match(String(done.created_at), /^\d{4}-\d\d-\d\dT/);
    assert.ok(states.every((s) => ['queued', 'running', 'completed'].includes(s)), states.join());
    // One run reached the model although hermes_task was called twice with this payload.
    const turns = requestsFor(id);
    assert.equal(turns.length, 1);
    assert.match(systemText(turns[0]!), /CONTRACT-MARK-7f3a/);
    const result = await ok('hermes_result', { id });
    assert.equal(result.status, 'completed');
    assert.equal(result.summary, 'async done');
    assert.equal((await ok('hermes_status', { run_id: runId })).result_updated, false);
  });

  test('hermes_status for a run Hermes never had is run_not_found', async () => {
    const r = await call('hermes_status', { run_id: 'run_00000000000000000000000000000000' });
    assert.equal(r.isError, true);
    assert.equal(r.data.error, 'run_not_found');
  });

  test('a session id with ".." is refused by Hermes (400 Invalid session ID), so the bridge refuses such names before any upstream call', async () => {
    const direct = await fetch(`${hermes.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hermes.key}`, 'content-type': 'application/json', 'x-hermes-session-id': 'gb-task-a..b' },
      body: JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(direct.status, 400);
    assert.match(((await direct.json()) as { error: { message: string } }).error.message, /Invalid session ID/);
    const r = await call('hermes_task', { task: 'x', mode: 'sync', id: 'real-a..b' });
    assert.equal(r.isError, true);
    assert.equal(r.data.error, 'invalid_arguments');
    assert.equal(requestsFor('real-a..b').length, 0);
  });

  test("the model refusing the request (HTTP 400): Hermes answers the sync task 200 with finish_reason error and its error text (a failed result), and ends the async run failed", async () => {
    const refusal = { status: 400, error: { error: { message: 'scripted refusal PROVIDER-400', type: 'invalid_request_error' } } };
    for (let i = 0; i < 4; i++) model.push({ when: agentTurnFor('real-fail-sync'), ...refusal }, { when: agentTurnFor('real-fail-async'), ...refusal }, { when: agentTurnFor('real-fail-direct'), ...refusal });
    // What this Hermes itself answers a client whose turn the provider refused: 0.19 passes the
    // provider's message on; later Hermes words it itself (agent/turn_failure_copy.py
    // nonretryable_copy: "<provider> rejected this request as malformed, ...").
    const direct = await fetch(`${hermes.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hermes.key}`, 'content-type': 'application/json', 'x-hermes-session-id': 'real-fail-direct' },
      body: JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: 'Task id: real-fail-direct\nfail please' }] }),
    });
    const directBody = (await direct.json()) as { choices: Array<{ message: { content: string }; finish_reason: string }> };
    assert.equal(directBody.choices[0]!.finish_reason, 'error');
    const hermesText = directBody.choices[0]!.message.content;
    assert.match(hermesText, idempotent ? /rejected this request as malformed/ : /PROVIDER-400/);
    const sync = await ok('hermes_task', { task: 'fail please', mode: 'sync', id: 'real-fail-sync' });
    assert.equal(sync.status, 'failed');
    assert.equal(sync.summary, `the agent reported an error: ${hermesText.slice(0, 2000)}`);
    const failed = await ok('hermes_result', { id: 'real-fail-sync' });
    assert.equal(failed.status, 'failed');
    assert.equal((failed.details as { error?: string } | undefined)?.error, 'agent_error');
    const accepted = await ok('hermes_task', { task: 'fail please', mode: 'async', id: 'real-fail-async' });
    const done = await waitFor(
      async () => {
        const s = await ok('hermes_status', { run_id: accepted.run_id });
        return s.terminal === true ? s : undefined;
      },
      60_000,
      'the failing run to end',
      100,
    );
    assert.equal(done.status, 'failed');
    assert.match(String(done.error), /PROVIDER-400|400/);
    assert.equal((await ok('hermes_result', { id: 'real-fail-async' })).status, 'failed');
  });

  test("Hermes' max_concurrent_runs (1 here) full: a sync task is a retryable agent_busy; a run cut short by Hermes' crash (its gateway killed mid-run) is interrupted, with Hermes' reason where Hermes kept the run", async () => {
    const id = 'real-lost-1';
    model.push({ when: agentTurnFor(id), hang: true });
    const accepted = await ok('hermes_task', { task: 'Never finishes', mode: 'async', id });
    await waitFor(() => requestsFor(id).length === 1, 30_000, 'the run to reach the model');
    assert.equal((await ok('hermes_status', { run_id: accepted.run_id })).status, 'running');
    const busy = await call('hermes_task', { task: 'No room', mode: 'sync', id: 'real-busy-1' });
    assert.equal(busy.isError, true);
    assert.equal(busy.data.error, 'agent_busy');
    assert.equal(busy.data.retry_after_seconds, 1);
    assert.equal((await ok('hermes_result', { id: 'real-busy-1' })).status, 'failed');
    assert.equal(requestsFor('real-busy-1').length, 0);
    await hermes.restart();
    const lost = await ok('hermes_status', { run_id: accepted.run_id });
    assert.equal(lost.status, 'interrupted');
    assert.equal(lost.result_updated, true);
    const result = await ok('hermes_result', { id });
    assert.equal(result.status, 'interrupted');
    if (idempotent) {
      // A Hermes that honours Idempotency-Key keeps such a run's status across its own crash and
      // answers it interrupted, with its reason (api_server_runs.py _durable_run_status).
      assert.match(String(lost.error), /restarted before this run settled/);
      assert.equal(result.summary, `the run was interrupted: ${String(lost.error)}`);
    } else {
      // 0.19 keeps runs in memory only: the run is gone, and the bridge says so.
      assert.equal(lost.error, null);
      assert.match(String(result.summary), /left the agent API before a result was recorded/);
    }
  });

  test('nothing reached past loopback, and no systemd manager was asked to start anything', () => {
    assert.deepEqual(hermes.egress, []);
    assert.ok(hermes.systemctlCalls().every((c) => !/\b(start|restart|enable)\b/.test(c)), hermes.systemctlCalls().join('\n'));
  });
});
