import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { messageText, startScriptedModel, type ModelRequest, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, hermesGet, lastRole, makeBridgeDeployment, modelMessages, runsLoadSessionHistory, startRealHermesApi, type BridgeDeployment, type RealHermesApi } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// An async task (POST /v1/runs) in a bridge session sees the session's earlier turns, as a sync
// one (POST /v1/chat/completions + X-Hermes-Session-Id) does. Hermes 0.19's _handle_runs loads no
// session history itself, so the bridge reads the session's messages (GET
// /api/sessions/{id}/messages) and sends them as conversation_history; later Hermes loads them
// itself (HERMES_CHANGES runs_load_session_history) and the bridge sends none. Real Hermes API
// server, its model scripted; what the model receives is compared between a sync and an async
// follow-up, and Hermes' state.db (read through its own session API) must hold every turn once.

const AGENT = 'hermes';
type Shown = { role: string; text: string };

/** The non-system messages the model was sent, task ids and directories made comparable. */
function conversation(r: ModelRequest, ids: Record<string, string>): Shown[] {
  return modelMessages(r)
    .filter((m) => m.role !== 'system')
    .map((m) => {
      let text = messageText(m.content);
      for (const [id, as] of Object.entries(ids)) text = text.split(id).join(as);
      return { role: m.role, text };
    });
}

describe('async tasks in a bridge session see its conversation state (real Hermes API server)', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  let small: TestGateway;
  let client: Client;
  let smallClient: Client;
  const turnOf = (id: string): ModelRequest => {
    const sent = model.chatRequests().filter(agentTurnFor(id));
    assert.equal(sent.length, 1, `one agent turn for ${id}`);
    return sent[0]!;
  };
  const stored = async (session: string): Promise<Array<{ role: string; content: unknown; id?: unknown }>> => {
    return (await hermesGet(hermes, `/api/sessions/${session}/messages`)).data as Array<{ role: string; content: unknown; id?: unknown }>;
  };
  const task = async (c: Client, id: string, session: string, mode: 'sync' | 'async', text: string, answer: string): Promise<void> => {
    model.push({ when: agentTurnFor(id), text: answer });
    const r = await viaBridge(c, 'hermes_task', { task: text, mode, id, session });
    if (mode === 'sync') {
      assert.equal(r.data.status, 'completed', JSON.stringify(r.data));
      return;
    }
    assert.equal(r.data.status, 'accepted', JSON.stringify(r.data));
    const runId = r.data.run_id as string;
    const s = await waitFor(async () => {
      const st = await viaBridge(c, 'hermes_status', { run_id: runId });
      return st.data.terminal === true ? st.data : undefined;
    }, 90_000, `run ${runId} to settle`);
    assert.equal(s.status, 'completed', JSON.stringify(s));
  };

  before(async () => {
    const dir = temp.make('hmcp-bridge-history-async-');
    model = await startScriptedModel({ fallback: { text: 'OK' } });
    hermes = await startRealHermesApi(dir, { model });
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeSyncTimeoutSeconds: 120 } });
    client = await connect(gw.mcpUrl, 'modern');
    small = await startTestGateway({ env: fx.env, limits: { bridgeSyncTimeoutSeconds: 120, bridgeSessionHistoryMaxMessages: 3 } });
    smallClient = await connect(small.mcpUrl, 'modern');
  });
  after(async () => {
    await client?.close();
    await smallClient?.close();
    await gw?.close();
    await small?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });

  test('sync then async in one session: the async run is sent the earlier turn exactly as a sync follow-up is', async () => {
    await task(client, 'sy-1', 'sy', 'sync', 'Remember the word HERON', 'I will remember HERON.');
    await task(client, 'sy-2', 'sy', 'sync', 'Which word?', 'HERON');
    await task(client, 'as-1', 'as', 'sync', 'Remember the word HERON', 'I will remember HERON.');
    await task(client, 'as-2', 'as', 'async', 'Which word?', 'HERON');

    const viaSync = conversation(turnOf('sy-2'), { 'sy-1': 'T1', 'sy-2': 'T2' });
    const viaAsync = conversation(turnOf('as-2'), { 'as-1': 'T1', 'as-2': 'T2' });
    assert.ok(viaAsync.some((m) => m.role === 'assistant' && m.text === 'I will remember HERON.'), JSON.stringify(viaAsync));
    assert.ok(viaAsync.some((m) => m.role === 'user' && m.text.includes('Remember the word HERON') && m.text.includes('Task id: T1\n')), JSON.stringify(viaAsync));
    assert.deepEqual(viaAsync, viaSync);
    const details = JSON.parse(readFileSync(join(fx.tasksDir, 'as-2', 'result.json'), 'utf8')).details as Record<string, unknown>;
    assert.equal(details.session_id, `gb-sess-${AGENT}-as`);
  });

  test('async then async: the second run is sent both earlier turns, the async one included', async () => {
    await task(client, 'as-3', 'as', 'async', 'And spelled backwards?', 'NOREH');
    const shown = conversation(turnOf('as-3'), {});
    assert.deepEqual(
      shown.map((m) => `${m.role}:${m.role === 'user' ? /Task id: (\S+)/.exec(m.text)?.[1] : m.text}`),
      ['user:as-1', 'assistant:I will remember HERON.', 'user:as-2', 'assistant:HERON', 'user:as-3'],
    );
  });

  test("Hermes' state.db holds each turn of the session once", async () => {
    const rows = await stored(`gb-sess-${AGENT}-as`);
    const seen = rows.map((m) => `${m.role}:${m.role === 'user' ? /Task id: (\S+)/.exec(String(m.content))?.[1] : String(m.content)}`);
    assert.deepEqual(seen, ['user:as-1', 'assistant:I will remember HERON.', 'user:as-2', 'assistant:HERON', 'user:as-3', 'assistant:NOREH']);
    assert.equal(new Set(rows.map((m) => m.id)).size, rows.length);
  });

  test('an earlier turn with tool calls: the async run gets its user and assistant text, not the tool traffic Hermes cannot carry on /v1/runs', async () => {
    model.push(
      { when: (r) => agentTurnFor('tc-1')(r) && lastRole(r) === 'user', toolCalls: [{ name: 'read_file', arguments: { path: fx.contractFile } }] },
      { when: (r) => agentTurnFor('tc-1')(r) && lastRole(r) === 'tool', text: 'The contract is read.' },
    );
    const first = await viaBridge(client, 'hermes_task', { task: 'Read the contract', mode: 'sync', id: 'tc-1', session: 'tc' });
    assert.equal(first.data.status, 'completed', JSON.stringify(first.data));
    assert.ok((await stored(`gb-sess-${AGENT}-tc`)).some((m) => m.role === 'tool'), 'Hermes stored the tool result');
    await task(client, 'tc-2', 'tc', 'async', 'What did you read?', 'The contract.');
    const shown = conversation(model.chatRequests().filter(agentTurnFor('tc-2'))[0]!, {});
    const outline = shown.map((m) => `${m.role}:${m.role === 'user' ? /Task id: (\S+)/.exec(m.text)?.[1] : m.role === 'tool' ? 'result' : m.text}`);
    if (runsLoadSessionHistory()) {
      // Hermes loads the session itself: the run sees the tool call and its result too.
      assert.deepEqual(outline, ['user:tc-1', 'assistant:', 'tool:result', 'assistant:The contract is read.', 'user:tc-2']);
      assert.match(shown[2]!.text, /# Contract/);
    } else {
      assert.deepEqual(outline, ['user:tc-1', 'assistant:The contract is read.', 'user:tc-2']);
    }
    // The text-only history sent does not replace or repeat the stored tool traffic.
    const rows = await stored(`gb-sess-${AGENT}-tc`);
    assert.deepEqual(
      rows.map((m) => `${m.role}:${m.role === 'user' ? /Task id: (\S+)/.exec(String(m.content))?.[1] : m.role === 'tool' ? 'result' : String(m.content ?? '')}`),
      ['user:tc-1', 'assistant:', 'tool:result', 'assistant:The contract is read.', 'user:tc-2', 'assistant:The contract.'],
    );
  });

  test('past bridgeSessionHistoryMaxMessages the run gets the newest messages, and the result says how many were left out (where the bridge sends them)', async () => {
    await task(smallClient, 'lm-1', 'lm', 'sync', 'First', 'one');
    await task(smallClient, 'lm-2', 'lm', 'sync', 'Second', 'two');
    await task(smallClient, 'lm-3', 'lm', 'async', 'Third', 'three');
    const shown = conversation(turnOf('lm-3'), {});
    const outline = shown.map((m) => `${m.role}:${m.role === 'user' ? /Task id: (\S+)/.exec(m.text)?.[1] : m.text}`);
    const details = JSON.parse(readFileSync(join(fx.tasksDir, 'lm-3', 'run.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(details.session_id, `gb-sess-${AGENT}-lm`);
    const result = JSON.parse(readFileSync(join(fx.tasksDir, 'lm-3', 'result.json'), 'utf8')).details as Record<string, unknown>;
    if (runsLoadSessionHistory()) {
      // Hermes loads the whole session itself (its own context management applies, not this cap).
      assert.deepEqual(outline, ['user:lm-1', 'assistant:one', 'user:lm-2', 'assistant:two', 'user:lm-3']);
      assert.equal(result.session_history, undefined);
    } else {
      // The newest 3 of [u1, a1, u2, a2].
      assert.deepEqual(outline, ['assistant:one', 'user:lm-2', 'assistant:two', 'user:lm-3']);
      assert.deepEqual(result.session_history, { messages: 3, omitted: 1 });
    }
  });

  test('Hermes tried nothing past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});
