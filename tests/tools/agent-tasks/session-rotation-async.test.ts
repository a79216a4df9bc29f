import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { messageText, startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, BULKY_NOTES, compressingRun, hermesSession, isSummaryRequest, makeBridgeDeployment, modelMessages, ROTATING_COMPRESSION, startRealHermesApi, type BridgeDeployment, type RealHermesApi } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// An async run (POST /v1/runs) in which Hermes compresses and rotates the session: the run's
// status keeps the session id it was given (api_server.py _handle_runs sets session_id once, and
// neither the terminal status nor the run.* events carry the agent's new one), so the bridge asks
// Hermes' session API when hermes_status first sees the run terminal. Real Hermes, its model
// scripted as in session-rotation.test.ts: 125,000 prompt tokens on a tool-calling turn (context
// 131,072) make Hermes compress after the tool call; the first task carries notes long enough that
// compressing them shrinks the transcript (BULKY_NOTES).

const SUMMARY = 'SUMMARY-MARK-5e0a: the earlier task was answered.';
const BASE = 'gb-sess-hermes-bg';


describe('a bridge session across a Hermes session rotation inside an async run', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  let client: Client;
  const session = (id: string) => hermesSession(hermes, id);
  const settled = (runId: string) =>
    waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: runId });
      return s.data.terminal === true ? s.data : undefined;
    }, 90_000, 'the run to settle');

  before(async () => {
    const dir = temp.make('hmcp-bridge-rotation-async-');
    model = await startScriptedModel({ fallback: { text: 'OK' } });
    hermes = await startRealHermesApi(dir, { model, config: ROTATING_COMPRESSION });
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeSyncTimeoutSeconds: 120 } });
    client = await connect(gw.mcpUrl, 'modern');
  });
  after(async () => {
    await client?.close();
    await gw?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });

  let rotated = '';
  test('an async run in which Hermes compresses: hermes_status learns the new session and the bridge records it in TASKS_DIR/.sessions', async () => {
    model.push({ when: agentTurnFor('bg-1'), text: 'first answer' });
    const first = await viaBridge(client, 'hermes_task', { task: 'Remember the number 7', context: BULKY_NOTES, mode: 'sync', id: 'bg-1', session: 'bg' });
    assert.equal(first.data.status, 'completed', JSON.stringify(first.data));

    // The run carries the session's first turn (the bridge sends it as conversation_history), and
    // Hermes' compressor keeps at least 3 tail messages: two tool calls make the run compress.
    model.push(...compressingRun('bg-2', fx.contractFile, SUMMARY, 'second answer'));
    const accepted = await viaBridge(client, 'hermes_task', { task: 'Read the contract', mode: 'async', id: 'bg-2', session: 'bg' });
    assert.equal(accepted.data.status, 'accepted', JSON.stringify(accepted.data));
    const runId = accepted.data.run_id as string;
    const status = await settled(runId);
    assert.equal(status.status, 'completed', JSON.stringify(status));
    assert.equal(model.chatRequests().filter(isSummaryRequest).length, 1, 'Hermes compressed once');
    // Hermes' own run status still names the session the run was given.
    const raw = (await (await fetch(`${hermes.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${hermes.key}` } })).json()) as Record<string, unknown>;
    assert.equal(raw.session_id, BASE);

    rotated = String(status.session_id);
    assert.notEqual(rotated, BASE);
    assert.equal(status.session_rotated_from, BASE);
    assert.equal((await session(BASE)).end_reason, 'compression');
    assert.equal((await session(rotated)).parent_session_id, BASE);
    const details = JSON.parse(readFileSync(join(fx.tasksDir, 'bg-2', 'result.json'), 'utf8')).details as Record<string, unknown>;
    assert.equal(details.session_id, rotated);
    assert.equal(details.session_rotated_from, BASE);
    assert.equal(details.session_follow_pending, undefined);
    const record = JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${BASE}.json`), 'utf8')) as Record<string, unknown>;
    assert.deepEqual({ ...record, updated_at: undefined }, { bridge_session_id: BASE, hermes_session_id: rotated, rotated_from: BASE, task_id: 'bg-2', updated_at: undefined });

    // A second poll of the settled run answers the same, and changes nothing.
    const again = await viaBridge(client, 'hermes_status', { run_id: runId });
    assert.equal(again.data.result_updated, false);
    assert.equal(again.data.session_id, rotated);
  });

  test('the next task in the session continues the new Hermes session: the model gets the compacted history', async () => {
    assert.ok(rotated, 'the rotation test ran');
    model.push({ when: agentTurnFor('bg-3'), text: 'third answer' });
    const third = await viaBridge(client, 'hermes_task', { task: 'What was the number?', mode: 'sync', id: 'bg-3', session: 'bg' });
    assert.equal(third.data.status, 'completed', JSON.stringify(third.data));
    const [sent] = model.chatRequests().filter(agentTurnFor('bg-3'));
    const messages = modelMessages(sent!);
    assert.ok(messages.some((m) => messageText(m.content).includes('SUMMARY-MARK-5e0a')), JSON.stringify(messages).slice(0, 2000));
    assert.ok(!messages.some((m) => m.role === 'user' && messageText(m.content).includes('Task id: bg-1\n')), 'the compressed-away turn is not replayed');
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, 'bg-3', 'result.json'), 'utf8')).details.session_id, rotated);
  });

  test('Hermes tried nothing past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});
