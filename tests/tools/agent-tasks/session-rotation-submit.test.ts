import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { messageText, startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, BULKY_NOTES, compressingRun, hermesGet, isSummaryRequest, makeBridgeDeployment, modelMessages, ROTATING_COMPRESSION, runsLoadSessionHistory, startRealHermesApi, type BridgeDeployment, type RealHermesApi } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// An async task submitted while the bridge has not yet followed a rotation (an earlier async run
// compressed its session, and nobody called hermes_status since). Where Hermes' /v1/runs loads no
// history (0.19), the session's messages, read to send as conversation_history, come from the
// session continuing it (Hermes' _handle_session_messages resolves the id with
// SessionDB.resolve_resume_session_id), so the run is sent there and the bridge records the move.
// Where it loads the history itself, it also adopts the live tip of the id it is given, and the
// bridge follows the move when the run settles. Either way the run sees the compacted history.
// Real Hermes, its model scripted as in session-rotation-async.test.ts; the first task carries
// notes long enough that compressing them shrinks the transcript (BULKY_NOTES).

const SUMMARY = 'SUMMARY-MARK-91c4: the earlier tasks were answered.';
const BASE = 'gb-sess-hermes-sub';


describe('an async task submitted before the bridge followed a rotation', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  let client: Client;
  const get = (path: string) => hermesGet(hermes, path);

  before(async () => {
    const dir = temp.make('hmcp-bridge-rotation-submit-');
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

  test('the run goes to the session Hermes continues in, with its compacted history, and the bridge records the move', async () => {
    model.push({ when: agentTurnFor('sub-1'), text: 'first answer' });
    const first = await viaBridge(client, 'hermes_task', { task: 'Remember the number 7', context: BULKY_NOTES, mode: 'sync', id: 'sub-1', session: 'sub' });
    assert.equal(first.data.status, 'completed', JSON.stringify(first.data));

    model.push(...compressingRun('sub-2', fx.contractFile, SUMMARY, 'second answer'));
    const accepted = await viaBridge(client, 'hermes_task', { task: 'Read the contract', mode: 'async', id: 'sub-2', session: 'sub' });
    assert.equal(accepted.data.status, 'accepted', JSON.stringify(accepted.data));
    const runId = accepted.data.run_id as string;
    // Settled as Hermes sees it, without hermes_status (which would follow the rotation itself).
    await waitFor(async () => ((await get(`/v1/runs/${runId}`)).status === 'completed' ? true : undefined), 90_000, 'the run to complete');
    assert.equal(model.chatRequests().filter(isSummaryRequest).length, 1, 'Hermes compressed once');
    assert.equal(((await get(`/api/sessions/${BASE}`)).session as Record<string, unknown>).end_reason, 'compression');

    model.push({ when: agentTurnFor('sub-3'), text: 'third answer' });
    const third = await viaBridge(client, 'hermes_task', { task: 'What was the number?', mode: 'async', id: 'sub-3', session: 'sub' });
    assert.equal(third.data.status, 'accepted', JSON.stringify(third.data));
    // The session Hermes continues BASE in: it resolves the ended id to its compression tip.
    const rotated = String((await get(`/api/sessions/${BASE}/messages`)).session_id);
    assert.notEqual(rotated, BASE);
    assert.equal(((await get(`/api/sessions/${rotated}`)).session as Record<string, unknown>).parent_session_id, BASE);
    const run = JSON.parse(readFileSync(join(fx.tasksDir, 'sub-3', 'run.json'), 'utf8')) as Record<string, unknown>;
    const submitted = JSON.parse(readFileSync(join(fx.tasksDir, 'sub-3', 'result.json'), 'utf8')).details as Record<string, unknown>;
    if (runsLoadSessionHistory()) {
      // This Hermes loads the run's history itself, from the live tip of the session it is given
      // (api_server_runs.py _handle_runs, _resolve_live_session_id): the bridge reads nothing and
      // sends the session it continues; the move is followed once the run settles (followRun).
      assert.equal(run.session_id, BASE);
      assert.equal(submitted.session_history, undefined);
    } else {
      // The bridge read the session's messages to send them, and they came from the tip.
      assert.equal(run.session_id, rotated);
      assert.equal(submitted.session_id, rotated);
      assert.equal(submitted.session_rotated_from, BASE);
      const record = JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${BASE}.json`), 'utf8')) as Record<string, unknown>;
      assert.equal(record.hermes_session_id, rotated);
      assert.equal(record.task_id, 'sub-3');
    }

    const status = await waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: third.data.run_id as string });
      return s.data.terminal === true ? s.data : undefined;
    }, 90_000, 'the third run to settle');
    assert.equal(status.status, 'completed', JSON.stringify(status));
    assert.equal(status.session_id, rotated);
    const record = JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${BASE}.json`), 'utf8')) as Record<string, unknown>;
    assert.equal(record.hermes_session_id, rotated);
    assert.equal(record.task_id, 'sub-3');
    const [sent] = model.chatRequests().filter(agentTurnFor('sub-3'));
    const messages = modelMessages(sent!);
    // Hermes' compressor opens the continuing session with the summary (here an assistant message).
    assert.ok(messages.some((m) => m.role !== 'system' && messageText(m.content).includes('SUMMARY-MARK-91c4')), JSON.stringify(messages).slice(0, 2000));
    assert.ok(!messages.some((m) => m.role === 'user' && messageText(m.content).includes('Task id: sub-1\n')), 'the compressed-away turn is not replayed');
    // The new turn went to the continuing session, once.
    const rows = (await get(`/api/sessions/${rotated}/messages`)).data as Array<{ role: string; content: unknown }>;
    assert.equal(rows.filter((m) => m.role === 'user' && String(m.content).includes('Task id: sub-3\n')).length, 1);
    assert.equal(rows.filter((m) => m.role === 'assistant' && m.content === 'third answer').length, 1);

    // The earlier run, polled now, is settled without moving the session again.
    const late = await viaBridge(client, 'hermes_status', { run_id: runId });
    assert.equal(late.data.status, 'completed');
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${BASE}.json`), 'utf8')).task_id, 'sub-3');
  });

  test('Hermes tried nothing past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});
