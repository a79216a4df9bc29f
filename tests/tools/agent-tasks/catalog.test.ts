import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, makeBridgeDeployment, startRealHermesApi, systemText, type BridgeDeployment, type RealHermesApi } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { SCOPE_FULL, scopeNeeded } from '../../../supervisor/core/scopes.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The five bridge tools and hermes_cancel as deferred catalog tools on a real gateway (tool_call through a real SDK
// v2 client), driving Hermes' real API server (its model scripted): sync and async tasks end to
// end, results, files.

describe('hermes-mcp-bridge tools through the gateway catalog', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    const dir = temp.make('hmcp-bridge-');
    model = await startScriptedModel();
    hermes = await startRealHermesApi(dir, { model });
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile });
    gw = await startTestGateway({ env: fx.env });
    client = await connect(gw.mcpUrl, 'modern');
  });
  after(async () => {
    await client?.close();
    await gw?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });
  const turns = (id: string) => model.chatRequests().filter(agentTurnFor(id));
  /**
   * Waits until Hermes has settled run `runId`. A test that starts an async run ends only then: Hermes
   * runs it in the background, and a turn of it reaching the model during a later test was counted
   * there as an upstream call that test's refused task made (the /p/<profile> test saw 5 !== 4).
   */
  const settled = (runId: string) =>
    waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: runId });
      return s.data.terminal === true ? s.data : undefined;
    }, 60_000, `run ${runId} to settle`);

  test('the five tools and hermes_cancel are catalogued with their annotations; the mutating ones need hermes:full', async () => {
    for (const name of ['hermes_task', 'hermes_status', 'list_agents', 'hermes_result', 'hermes_files', 'hermes_cancel']) assert.ok(gw.gateway.catalog.has(name), name);
    assert.equal(gw.gateway.catalog.get('hermes_task')!.tool.annotations.destructiveHint, true);
    assert.equal(gw.gateway.catalog.get('hermes_task')!.tool.annotations.openWorldHint, true);
    assert.equal(gw.gateway.catalog.get('hermes_files')!.tool.annotations.readOnlyHint, true);
    assert.equal(gw.gateway.catalog.get('hermes_cancel')!.tool.annotations.destructiveHint, true);
    assert.equal(gw.gateway.catalog.get('hermes_cancel')!.tool.annotations.readOnlyHint, false);
    assert.equal(scopeNeeded('hermes_cancel', { run_id: 'run_1' }), SCOPE_FULL);
    assert.equal(scopeNeeded('hermes_task', { task: 'x', mode: 'sync' }), SCOPE_FULL);
  });

  test("a sync task: a chat completion in Hermes' session gb-task-<id> with the contract, result.json persisted", async () => {
    model.push({ when: agentTurnFor('sync-1'), text: 'Hello from the scripted model' });
    const r = await viaBridge(client, 'hermes_task', { task: 'Say hello', mode: 'sync', id: 'sync-1', constraints: ['be brief'] });
    assert.equal(r.isError, false, JSON.stringify(r.data));
    assert.equal(r.data.id, 'sync-1');
    assert.equal(r.data.status, 'completed');
    assert.equal(r.data.summary, 'Hello from the scripted model');
    const [sent] = turns('sync-1');
    assert.match(systemText(sent!), /# Contract/);
    // Hermes keeps the turn under the session id the bridge sent as X-Hermes-Session-Id.
    const session = await fetch(`${hermes.url}/api/sessions/gb-task-sync-1/messages`, { headers: { authorization: `Bearer ${hermes.key}` } });
    assert.equal(session.status, 200);
    assert.match(await session.text(), /Hello from the scripted model/);
    const stored = JSON.parse(readFileSync(join(fx.tasksDir, 'sync-1', 'result.json'), 'utf8'));
    assert.equal(stored.status, 'completed');
    assert.equal(stored.details.agent, 'hermes');
    const result = await viaBridge(client, 'hermes_result', { id: 'sync-1' });
    assert.equal(result.data.summary, r.data.summary);
  });

  test('an async task: 202 run, run.json written at once, status to completed, result updated', async () => {
    model.push({ when: agentTurnFor('async-1'), text: 'Worked long', delayMs: 200 });
    const r = await viaBridge(client, 'hermes_task', { task: 'Work long', mode: 'async', id: 'async-1', session: 'proj' });
    assert.equal(r.data.status, 'accepted', JSON.stringify(r.data));
    const runId = r.data.run_id as string;
    assert.match(runId, /^run_[0-9a-f]{32}$/);
    const run = JSON.parse(readFileSync(join(fx.tasksDir, 'async-1', 'run.json'), 'utf8'));
    assert.deepEqual(Object.keys(run).sort(), ['agent', 'agent_base_url', 'bridge_session_id', 'created_at', 'run_id', 'session_id', 'task_id', 'task_sha256']);
    assert.equal(run.session_id, 'gb-sess-hermes-proj');
    assert.equal(run.bridge_session_id, 'gb-sess-hermes-proj');
    const status = await waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: runId });
      return s.data.status === 'completed' ? s.data : undefined;
    }, 60_000, 'the run to complete');
    // The run's instructions (the contract) reached the model as part of Hermes' system prompt.
    assert.match(systemText(turns('async-1')[0]!), /# Contract/);
    assert.equal(status.session_id, 'gb-sess-hermes-proj');
    assert.equal(status.task_id, 'async-1');
    assert.equal(status.agent, 'hermes');
    // Hermes sends Unix seconds, run.json holds ISO text: the answer is ISO 8601 either way.
    for (const key of ['created_at', 'updated_at']) assert.match(String(status[key]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, key);
    assert.equal(status.result_updated, true);
    const result = await viaBridge(client, 'hermes_result', { id: 'async-1' });
    assert.equal(result.data.status, 'completed');
    assert.equal(result.data.summary, 'Worked long');
    const again = await viaBridge(client, 'hermes_status', { run_id: runId });
    assert.equal(again.data.result_updated, false, 'a settled result is written once');
  });

  test('a failed run is terminal and recorded; a run no one knows is RUN_NOT_FOUND', async () => {
    for (let i = 0; i < 4; i++) model.push({ when: agentTurnFor('async-fail'), status: 400, error: { error: { message: 'refused on purpose', type: 'invalid_request_error' } } });
    const failed = await viaBridge(client, 'hermes_task', { task: 'fail please', mode: 'async', id: 'async-fail' });
    const s = await waitFor(async () => {
      const x = await viaBridge(client, 'hermes_status', { run_id: failed.data.run_id as string });
      return x.data.status === 'failed' ? x.data : undefined;
    }, 60_000, 'the run to fail');
    assert.match(String(s.error), /refused on purpose/);
    assert.equal((await viaBridge(client, 'hermes_result', { id: 'async-fail' })).data.status, 'failed');
    const unknown = await viaBridge(client, 'hermes_status', { run_id: 'run_00000000000000000000000000000000' });
    assert.equal(unknown.data.error, 'RUN_NOT_FOUND');
  });

  test('an idempotent retry returns the same run; the same id with another task is duplicate_id', async () => {
    model.push({ when: agentTurnFor('idem-1'), text: 'once' });
    const a = await viaBridge(client, 'hermes_task', { task: 'same', mode: 'async', id: 'idem-1' });
    const b = await viaBridge(client, 'hermes_task', { task: 'same', mode: 'async', id: 'idem-1' });
    assert.equal(b.data.run_id, a.data.run_id);
    const c = await viaBridge(client, 'hermes_task', { task: 'different', mode: 'async', id: 'idem-1' });
    assert.equal(c.data.error, 'DUPLICATE_ID');
    assert.equal((await settled(a.data.run_id as string)).status, 'completed');
    assert.equal(turns('idem-1').length, 1, 'one run, one agent turn');
  });

  test('unknown agents fail before any upstream call; a task id owned by another agent is duplicate_id', async () => {
    const before = model.chatRequests().length;
    const r = await viaBridge(client, 'hermes_task', { task: 'x', mode: 'sync', agent: 'nobody' });
    assert.equal(r.data.error, 'UNKNOWN_AGENT');
    assert.equal(model.chatRequests().length, before);
    writeFileSync(join(fx.tasksDir, 'sync-1', 'result.json'), JSON.stringify({ id: 'sync-1', status: 'completed', summary: '', artifacts: [], next_steps: [], details: { agent: 'other' } }));
    const d = await viaBridge(client, 'hermes_task', { task: 'x', mode: 'sync', id: 'sync-1' });
    assert.equal(d.data.error, 'DUPLICATE_ID');
    assert.equal(model.chatRequests().length, before);
  });

  test('hermes_status of a run whose agent left the registry: agent_unavailable naming the run and its agent', async () => {
    model.push({ when: agentTurnFor('orphan-1'), text: 'orphaned' });
    const r = await viaBridge(client, 'hermes_task', { task: 'orphaned later', mode: 'async', id: 'orphan-1' });
    fx.writeAgents(`agents:\n  - name: coder\n    base_url: ${hermes.url}\n    key_env: API_SERVER_KEY\n`);
    try {
      const s = await viaBridge(client, 'hermes_status', { run_id: r.data.run_id as string });
      assert.equal(s.data.error, 'AGENT_UNAVAILABLE', JSON.stringify(s.data));
      assert.match(String(s.data.message), new RegExp(`run ${r.data.run_id as string} \\(task orphan-1\\) was accepted by agent hermes, which is no longer in the agent registry`));
      assert.equal(s.data.agent, 'hermes');
    } finally {
      rmSync(fx.agentsFile);
    }
    // Back in the registry (the synthetic default again), the run is followed to its end.
    assert.equal((await settled(r.data.run_id as string)).status, 'completed');
  });

  test('a /p/<profile> agent on a Hermes listener that does not multiplex profiles (it would serve its own profile): unavailable, no task sent', async () => {
    fx.writeAgents(`agents:\n  - name: hermes\n    base_url: ${hermes.url}\n    key_env: API_SERVER_KEY\n  - name: coder\n    profile: coder\n    base_url: ${hermes.url}/p/coder\n    key_env: API_SERVER_KEY\n`);
    try {
      const prefixed = await fetch(`${hermes.url}/p/coder/v1/models`, { headers: { authorization: `Bearer ${hermes.key}` } });
      if (prefixed.status === 404) {
        // Later Hermes refuses a prefix it does not serve, on every path (upstream PR #92871).
        assert.match(await prefixed.text(), /Unknown or unconfigured profile/);
      } else {
        // 0.19 answers the prefixed path as its own profile: the prefix is ignored, not refused.
        const models = (await prefixed.json()) as { data: Array<{ id: string }> };
        assert.equal(models.data[0]!.id, 'hermes-agent');
      }
      const listed = await viaBridge(client, 'list_agents');
      const coder = (listed.data.agents as Array<Record<string, unknown>>).find((a) => a.name === 'coder')!;
      assert.equal(coder.available, false);
      assert.equal(coder.unavailable_reason, 'profile_not_served');
      const before = model.chatRequests().length;
      const r = await viaBridge(client, 'hermes_task', { task: 'x', mode: 'sync', id: 'misrouted-1', agent: 'coder' });
      assert.equal(r.data.error, 'AGENT_UNAVAILABLE');
      assert.match(String(r.data.message), /does not serve profile coder/);
      assert.equal(model.chatRequests().length, before);
    } finally {
      rmSync(fx.agentsFile);
    }
  });

  test('/readyz reports the configured bridge beside readiness', async () => {
    const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as { bridge: Record<string, unknown> };
    assert.deepEqual(ready.bridge, { status: 'configured', agents: 1, default_agent: 'hermes', degraded: 'no_registry' });
  });

  test('list_agents without a registry: the synthetic default agent, degraded no_registry, no key', async () => {
    const r = await viaBridge(client, 'list_agents');
    assert.equal(r.data.degraded, 'no_registry');
    assert.equal(r.data.count, 1);
    assert.equal(r.data.default, 'hermes');
    const [agent] = r.data.agents as Array<Record<string, unknown>>;
    assert.equal(agent!.available, true);
    assert.ok(!JSON.stringify(r.data).includes(hermes.key), 'no key is returned');
  });

  test('hermes_files lists and reads artifacts; missing results and tasks have their own codes', async () => {
    writeFileSync(join(fx.tasksDir, 'async-1', 'report.md'), '# Report\nfine\n');
    const list = await viaBridge(client, 'hermes_files', { id: 'async-1' });
    assert.ok((list.data.entries as Array<{ name: string }>).some((e) => e.name === 'report.md'));
    const file = await viaBridge(client, 'hermes_files', { id: 'async-1', path: 'report.md' });
    assert.equal(file.data.content, '# Report\nfine\n');
    assert.equal(file.data.encoding, 'utf-8');
    assert.equal(file.data.redacted, undefined, 'nothing was masked');
    writeFileSync(join(fx.tasksDir, 'async-1', 'notes.txt'), 'token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n');
    const masked = await viaBridge(client, 'hermes_files', { id: 'async-1', path: 'notes.txt' });
    assert.equal(masked.data.redacted, true, 'a file answer changed by redaction says so');
    assert.ok(!String(masked.data.content).includes('ghp_abcdefghijklmnopqrstuvwxyz0123456789'));
    assert.equal((await viaBridge(client, 'hermes_result', { id: 'never' })).data.error, 'TASK_NOT_FOUND');
    assert.equal((await viaBridge(client, 'hermes_files', { id: 'async-1', path: '../sync-1/result.json' })).data.error, 'INVALID_PATH');
    assert.ok(!existsSync(join(fx.tasksDir, 'never')));
  });

  test('Hermes tried nothing past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});

describe('without HERMES_MCP_BRIDGE_ENV', () => {
  test('the tools are still catalogued and answer BRIDGE_NOT_CONFIGURED', async () => {
    const gw = await startTestGateway();
    const client = await connect(gw.mcpUrl, 'modern');
    try {
      assert.ok(gw.gateway.catalog.has('hermes_task'));
      const r = await viaBridge(client, 'list_agents');
      assert.equal(r.data.error, 'BRIDGE_NOT_CONFIGURED');
      assert.match(String(r.data.message), /HERMES_MCP_BRIDGE_ENV/);
      const health = await fetch(`${gw.url}/bridge/health`);
      assert.equal(health.status, 503);
      const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as { bridge: { status: string }; components: Record<string, unknown> };
      assert.equal(ready.bridge.status, 'not_configured');
      assert.ok(!('bridge' in ready.components), 'optional: reported beside readiness, never a component');
    } finally {
      await client.close();
      await gw.close();
    }
  });
});
