import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { messageText, startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, BULKY_NOTES, hermesSession, isSummaryRequest, lastRole, makeBridgeDeployment, modelMessages, ROTATING_COMPRESSION, runsLoadSessionHistory, startHermesRelay, startRealHermesApi, type BridgeDeployment, type HermesRelay, type RealHermesApi } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// A bridge session follows Hermes when Hermes rotates it. Hermes' context compression with
// `compression.in_place: false` ends the session it compressed and continues in a new one; its API
// server names that one in the chat completion's X-Hermes-Session-Id (api_server.py _run_agent
// returns the agent's session_id after the turn). Real Hermes, its model scripted: the model reports
// a prompt of 125,000 tokens (context_length 131,072) on a tool-calling turn, which makes Hermes
// compress after that tool call; its summary request also reaches the scripted model (the first
// task carries notes long enough that compressing them shrinks the transcript: BULKY_NOTES). The
// next task in the session, after a gateway restart, must land in the new Hermes session. Later
// Hermes keeps answering the id the client sent and resolves it to the continuation itself; which
// one this Hermes does is read from its answer (through a relay).

const SUMMARY = 'SUMMARY-MARK-91c2: the earlier task was answered.';
const BASE = 'gb-sess-hermes-long';


describe('a bridge session across a Hermes session rotation', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  let client: Client;
  let relay: HermesRelay;
  const openBridgeGateway = async () => {
    gw = await startTestGateway({ env: fx.env, limits: { bridgeSyncTimeoutSeconds: 120 } });
    client = await connect(gw.mcpUrl, 'modern');
  };
  const stopGateway = async () => {
    await client?.close();
    await gw?.close();
  };
  const session = (id: string) => hermesSession(hermes, id);
  // Hermes resolves a session's messages along its compression chain (resolve_resume_session_id):
  // asked for the ended session, it answers the continuation's.
  const transcript = async (id: string) => (await fetch(`${hermes.url}/api/sessions/${id}/messages`, { headers: { authorization: `Bearer ${hermes.key}` } })).json() as Promise<{ session_id: string; data: Array<{ content?: string }> }>;

  before(async () => {
    const dir = temp.make('hmcp-bridge-rotation-');
    model = await startScriptedModel({ fallback: { text: 'OK' } });
    hermes = await startRealHermesApi(dir, { model, config: ROTATING_COMPRESSION });
    // The agent is reached through a relay that shows what Hermes answered (its X-Hermes-Session-Id).
    relay = await startHermesRelay(hermes.url);
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile });
    fx.writeAgents(`agents:\n  - name: hermes\n    base_url: ${relay.url}\n    key_env: API_SERVER_KEY\n`);
    await openBridgeGateway();
  });
  after(async () => {
    await stopGateway();
    await relay?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });

  let rotated = '';
  /** The id the bridge sends for the session from now on: the continuation, or BASE where Hermes keeps the id a client sent. */
  let continued = '';
  let endedCount = 0;
  test('a turn in which Hermes compresses: the bridge follows the session id Hermes answers, and keeps a move in TASKS_DIR/.sessions', async () => {
    model.push({ when: agentTurnFor('rot-1'), text: 'first answer' });
    const first = await viaBridge(client, 'hermes_task', { task: 'Remember the number 7', context: BULKY_NOTES, mode: 'sync', id: 'rot-1', session: 'long' });
    assert.equal(first.data.status, 'completed', JSON.stringify(first.data));
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, 'rot-1', 'result.json'), 'utf8')).details.session_id, BASE);

    model.push(
      { when: (r) => agentTurnFor('rot-2')(r) && lastRole(r) === 'user', toolCalls: [{ name: 'read_file', arguments: { path: fx.contractFile } }], usage: { prompt_tokens: 125_000, completion_tokens: 5 } },
      { when: isSummaryRequest, text: SUMMARY },
      { when: (r) => Array.isArray(r.body?.tools) && lastRole(r) === 'tool', text: 'second answer' },
    );
    const second = await viaBridge(client, 'hermes_task', { task: 'Read the contract', mode: 'sync', id: 'rot-2', session: 'long' });
    assert.equal(second.data.status, 'completed', JSON.stringify(second.data));
    assert.equal(second.data.summary, 'second answer');
    assert.equal(model.chatRequests().filter(isSummaryRequest).length, 1, 'Hermes compressed once');

    // Hermes ended the compressed session and made a new one its continuation.
    const ended = await session(BASE);
    assert.equal(ended.end_reason, 'compression');
    endedCount = Number(ended.message_count);
    rotated = (await transcript(BASE)).session_id;
    assert.notEqual(rotated, BASE);
    assert.equal((await session(rotated)).parent_session_id, BASE);

    const details = JSON.parse(readFileSync(join(fx.tasksDir, 'rot-2', 'result.json'), 'utf8')).details as Record<string, unknown>;
    const answered = relay.answers.filter((a) => a.method === 'POST' && a.path === '/v1/chat/completions').at(-1)?.sessionId;
    if (answered === BASE) {
      // This Hermes answers the id the client sent and continues in the tip itself on the next
      // turn (api_server_openai_routes.py: the #13437 identity contract, _resolve_live_session_id):
      // the bridge keeps sending BASE, and records no move.
      continued = BASE;
      assert.equal(details.session_id, BASE);
      assert.equal(details.session_rotated_from, undefined);
      assert.equal(existsSync(join(fx.tasksDir, '.sessions', `${BASE}.json`)), false);
    } else {
      // 0.19 answers the continuation (api_server.py _run_agent returns the agent's session_id):
      // the bridge records it and sends it from now on.
      assert.equal(answered, rotated);
      continued = rotated;
      assert.equal(details.session_id, rotated);
      assert.equal(details.session_rotated_from, BASE);
      const record = JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${BASE}.json`), 'utf8')) as Record<string, unknown>;
      assert.deepEqual({ ...record, updated_at: undefined }, { bridge_session_id: BASE, hermes_session_id: rotated, rotated_from: BASE, task_id: 'rot-2', updated_at: undefined });
    }
  });

  test('after a gateway restart, the next task in the session continues the new Hermes session: the model gets the compacted history', async () => {
    assert.ok(rotated, 'the rotation test ran');
    await stopGateway();
    await openBridgeGateway();
    model.push({ when: agentTurnFor('rot-3'), text: 'third answer' });
    const third = await viaBridge(client, 'hermes_task', { task: 'What was the number?', mode: 'sync', id: 'rot-3', session: 'long' });
    assert.equal(third.data.status, 'completed', JSON.stringify(third.data));
    const [sent] = model.chatRequests().filter(agentTurnFor('rot-3'));
    const messages = modelMessages(sent!);
    // Hermes loaded the continuation (with its summary), not the ended session's full transcript
    // (which it would have for the old id: chat completions load exactly the session named).
    assert.ok(messages.some((m) => messageText(m.content).includes('SUMMARY-MARK-91c2')), JSON.stringify(messages).slice(0, 2000));
    assert.ok(!messages.some((m) => m.role === 'user' && messageText(m.content).includes('Task id: rot-1\n')), 'the compressed-away turn is not replayed');
    // The turn was kept in the continuation; the ended session got nothing more.
    const kept = await transcript(rotated);
    assert.equal(kept.session_id, rotated);
    assert.ok(kept.data.some((m) => String(m.content).includes('Task id: rot-3')));
    assert.equal(Number((await session(BASE)).message_count), endedCount);
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, 'rot-3', 'result.json'), 'utf8')).details.session_id, continued);
  });

  test('an async task in the session is submitted in the new Hermes session too', async () => {
    model.push({ when: agentTurnFor('rot-4'), text: 'fourth answer' });
    const accepted = await viaBridge(client, 'hermes_task', { task: 'Work in the background', mode: 'async', id: 'rot-4', session: 'long' });
    assert.equal(accepted.data.status, 'accepted', JSON.stringify(accepted.data));
    // Where Hermes loads a run's history itself, the bridge sends the id it continues and Hermes
    // adopts the tip; where it does not, the bridge read the session's messages, which name the tip.
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, 'rot-4', 'run.json'), 'utf8')).session_id, runsLoadSessionHistory() ? continued : rotated);
    const status = await waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: accepted.data.run_id as string });
      return s.data.terminal === true ? s.data : undefined;
    }, 60_000, 'the run to settle');
    assert.equal(status.status, 'completed');
    assert.equal(status.session_id, rotated);
  });

  test('Hermes tried nothing past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});
