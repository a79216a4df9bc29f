import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, makeBridgeDeployment, runsIdempotent, startHermesRelay, startRealHermesApi, type BridgeDeployment, type HermesRelay, type RealHermesApi } from '../../helpers/bridge.js';
import { hermesPin } from '../../helpers/hermes.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// Async runs against Hermes' real API server, for what changed in its /v1/runs: whether POST
// /v1/runs honours Idempotency-Key (GET /v1/capabilities features.runs_idempotency; upstream PR
// #88408, not in 0.19) and stopping a run (POST /v1/runs/{id}/stop, hermes_cancel). A loopback
// relay stands between the gateway and Hermes, so that one answer can be lost after Hermes acted on
// it (what no Hermes produces on demand). Expectations follow what this Hermes' capabilities say.

const answer = (summary: string) => JSON.stringify({ summary, next_steps: [] });

describe('async runs against the real Hermes API server: idempotency and stop', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let relay: HermesRelay;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  let client: Client;
  let idempotent = false;

  before(async () => {
    const dir = temp.make('hmcp-real-hermes-runs-');
    model = await startScriptedModel({ fallback: { text: 'OK' } });
    hermes = await startRealHermesApi(dir, { model });
    relay = await startHermesRelay(hermes.url);
    idempotent = await runsIdempotent(hermes);
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile });
    fx.writeAgents(`agents:\n  - name: hermes\n    base_url: ${relay.url}\n    key_env: API_SERVER_KEY\n`);
    gw = await startTestGateway({ env: fx.env, limits: { bridgeSyncTimeoutSeconds: 120 } });
    client = await connect(gw.mcpUrl, 'modern');
  });
  after(async () => {
    await client?.close();
    await gw?.close();
    await relay?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });
  const turns = (id: string) => model.chatRequests().filter(agentTurnFor(id));
  const runFile = (id: string) => JSON.parse(readFileSync(join(fx.tasksDir, id, 'run.json'), 'utf8')) as Record<string, unknown>;
  const posts = () => relay.answers.filter((a) => a.method === 'POST' && a.path === '/v1/runs');
  /** A run of this Hermes that has ended (the idempotency test's). */
  let endedRun = '';
  const settled = (runId: string) =>
    waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: runId });
      return s.data.terminal === true ? s.data : undefined;
    }, 60_000, `run ${runId} to settle`);

  test('capabilities: the newest Hermes advertises Idempotency-Key on runs, 0.19 does not; both have run stop', async () => {
    assert.equal(idempotent, hermesPin() === 'newest');
    const caps = (await (await fetch(`${hermes.url}/v1/capabilities`, { headers: { authorization: `Bearer ${hermes.key}` } })).json()) as { features: Record<string, unknown> };
    assert.equal(caps.features.run_stop, true);
  });

  test('an accept lost after Hermes took the run: where Hermes honours the key, the same submission once more is answered with that run (no second run); elsewhere the outcome is unknown', async () => {
    const id = 'lost-accept-1';
    model.push({ when: agentTurnFor(id), text: answer('ran once') });
    const before = posts().length;
    relay.dropNextAnswer('POST', '/v1/runs');
    const r = await viaBridge(client, 'hermes_task', { task: 'Run once', mode: 'async', id });
    assert.deepEqual(relay.dropped, ['POST /v1/runs']);
    if (idempotent) {
      assert.equal(r.data.status, 'accepted', JSON.stringify(r.data));
      assert.equal(posts().length - before, 2, 'the submission and its one retry');
      const run = runFile(id);
      assert.equal(run.run_id, r.data.run_id);
      assert.equal(run.replayed, true);
      assert.equal((await settled(String(r.data.run_id))).status, 'completed');
      assert.equal(turns(id).length, 1, 'one run reached the model');
    } else {
      assert.equal(r.data.error, 'UPSTREAM_FAILED', JSON.stringify(r.data));
      assert.equal(r.data.outcome, 'unknown');
      assert.equal(posts().length - before, 1, 'no retry: it could start a second run');
      assert.ok(!existsSync(join(fx.tasksDir, id, 'run.json')));
      // Hermes has the run all the same.
      await waitFor(() => turns(id).length === 1, 30_000, 'the run Hermes took to reach the model');
    }
  });

  test('the same task id again after its run.json was lost: Hermes that honours the key answers the same run for the same task and refuses another task (DUPLICATE_ID); 0.19 starts new runs', async () => {
    const id = 'idem-lost-1';
    const task = { task: 'Count to three', mode: 'async', id };
    model.push({ when: agentTurnFor(id), text: answer('one two three') });
    const first = await viaBridge(client, 'hermes_task', task);
    assert.equal(first.data.status, 'accepted', JSON.stringify(first.data));
    assert.equal((await settled(String(first.data.run_id))).status, 'completed');
    endedRun = String(first.data.run_id);

    rmSync(join(fx.tasksDir, id), { recursive: true });
    const again = await viaBridge(client, 'hermes_task', task);
    assert.equal(again.data.status, 'accepted', JSON.stringify(again.data));
    if (idempotent) {
      assert.equal(again.data.run_id, first.data.run_id, 'Hermes replayed the run');
      assert.equal(runFile(id).replayed, true);
      assert.equal(turns(id).length, 1);
    } else {
      assert.notEqual(again.data.run_id, first.data.run_id);
      await settled(String(again.data.run_id));
      assert.equal(turns(id).length, 2);
    }

    rmSync(join(fx.tasksDir, id), { recursive: true });
    const other = await viaBridge(client, 'hermes_task', { ...task, task: 'Count to four' });
    if (idempotent) {
      assert.equal(other.data.error, 'DUPLICATE_ID', JSON.stringify(other.data));
      assert.equal(other.data.reason, 'idempotency_key_conflict');
      assert.equal(other.data.retention_seconds, 86_400);
      assert.match(String(other.data.message), /agent hermes already ran another request under task id idem-lost-1 within the 24 h Hermes remembers a key/);
    } else {
      assert.equal(other.data.status, 'accepted', JSON.stringify(other.data));
      await settled(String(other.data.run_id));
    }
  });

  test('hermes_cancel stops a running run: Hermes interrupts it, it settles cancelled, and the result says so', async () => {
    const id = 'cancel-1';
    model.push({ when: agentTurnFor(id), hang: true });
    const accepted = await viaBridge(client, 'hermes_task', { task: 'Never finishes', mode: 'async', id });
    const runId = String(accepted.data.run_id);
    await waitFor(() => turns(id).length === 1, 30_000, 'the run to reach the model');
    const stopped = await viaBridge(client, 'hermes_cancel', { run_id: runId });
    assert.equal(stopped.isError, false, JSON.stringify(stopped.data));
    assert.equal(stopped.data.stop, 'requested');
    assert.equal(stopped.data.task_id, id);
    assert.ok(['stopping', 'cancelled'].includes(String(stopped.data.status)), JSON.stringify(stopped.data));
    const done = await settled(runId);
    assert.equal(done.status, 'cancelled');
    const result = await viaBridge(client, 'hermes_result', { id });
    assert.equal(result.data.status, 'cancelled');
    assert.match(String(result.data.summary), /^the run was cancelled/);
  });

  test('hermes_cancel of a recorded run that already ended changes nothing and answers its status; of a run no task recorded, RUN_NOT_FOUND', async () => {
    // Only where the lost accept was recovered (Hermes honours the key) does the bridge know that run.
    assert.equal(existsSync(join(fx.tasksDir, 'lost-accept-1', 'run.json')), idempotent, 'a run.json for the lost accept exactly where it was recovered');
    if (idempotent) {
      const ended = await viaBridge(client, 'hermes_cancel', { run_id: String(runFile('lost-accept-1').run_id) });
      assert.equal(ended.isError, false, JSON.stringify(ended.data));
      assert.equal(ended.data.stop, 'not_running');
      assert.equal(ended.data.status, 'completed');
    }
    const id = 'ended-1';
    model.push({ when: agentTurnFor(id), text: answer('done') });
    const accepted = await viaBridge(client, 'hermes_task', { task: 'Finish at once', mode: 'async', id });
    const recorded = String(accepted.data.run_id);
    assert.equal((await settled(recorded)).status, 'completed');
    const again = await viaBridge(client, 'hermes_cancel', { run_id: recorded });
    assert.equal(again.data.stop, 'not_running', JSON.stringify(again.data));
    assert.equal(again.data.terminal, true);
    // The idempotency test's first run: Hermes has it, but its run.json is gone.
    assert.ok(endedRun, 'the idempotency test ran');
    assert.ok(!existsSync(join(fx.tasksDir, 'idem-lost-1', 'run.json')) || runFile('idem-lost-1').run_id !== endedRun);
    const forgotten = await viaBridge(client, 'hermes_cancel', { run_id: endedRun });
    assert.equal(forgotten.data.error, 'RUN_NOT_FOUND', JSON.stringify(forgotten.data));
    const unknown = await viaBridge(client, 'hermes_cancel', { run_id: 'run_00000000000000000000000000000000' });
    assert.equal(unknown.data.error, 'RUN_NOT_FOUND', JSON.stringify(unknown.data));
  });

  test("hermes_cancel leaves alone a run another client of the same API server started (same key): RUN_NOT_FOUND, no stop sent; hermes_status still reads it", async () => {
    const id = 'foreign-1';
    model.push({ when: agentTurnFor(id), hang: true });
    const api = (path: string, body?: unknown) =>
      fetch(`${hermes.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${hermes.key}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    // Started on Hermes' API server directly, as its own UI or another bridge would: never through the gateway.
    const started = await api('/v1/runs', { input: `Task id: ${id}\nWait.` });
    assert.equal(started.status, 202);
    const runId = ((await started.json()) as { run_id: string }).run_id;
    await waitFor(() => turns(id).length === 1, 30_000, 'the foreign run to reach the model');
    const stops = () => relay.answers.filter((a) => a.method === 'POST' && a.path.endsWith('/stop')).length;
    const stopsBefore = stops();
    const refused = await viaBridge(client, 'hermes_cancel', { run_id: runId });
    assert.equal(refused.data.error, 'RUN_NOT_FOUND', JSON.stringify(refused.data));
    assert.match(String(refused.data.message), /hermes_cancel stops only runs hermes_task started here/);
    assert.equal(stops(), stopsBefore, 'no stop reached Hermes');
    const status = await viaBridge(client, 'hermes_status', { run_id: runId });
    assert.equal(status.isError, false, JSON.stringify(status.data));
    assert.equal(status.data.terminal, false, JSON.stringify(status.data));
    const still = (await (await api(`/v1/runs/${runId}`)).json()) as { status: string };
    assert.ok(!['cancelled', 'stopping'].includes(still.status), JSON.stringify(still));
    // Its owner stops it.
    assert.equal((await api(`/v1/runs/${runId}/stop`, {})).status, 200);
    await waitFor(async () => ((await (await api(`/v1/runs/${runId}`)).json()) as { status: string }).status === 'cancelled', 60_000, 'the foreign run to settle');
  });

  test('the bridge profile keeps exactly its five tools: hermes_cancel is the gateway catalog\'s only', async () => {
    const list = await fetch(`${gw.url}/bridge/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${fx.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const names = ((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['hermes_files', 'hermes_result', 'hermes_status', 'hermes_task', 'list_agents']);
    assert.ok(gw.gateway.catalog.has('hermes_cancel'));
  });

  test('Hermes tried nothing past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});
