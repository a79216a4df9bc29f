import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../../fixtures/scripted-model.js';
import { agentTurnFor, bridgeToolCaller, makeBridgeDeployment, startRealHermesApi, systemText, type BridgeDeployment, type RealHermesApi } from '../../helpers/bridge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// /p/<profile> agents against Hermes' real multiplexing API server (gateway.multiplex_profiles),
// with a profile `coder` Hermes created itself and gave its own API_SERVER_KEY. Which key a
// /p/<profile> takes depends on the Hermes: 0.19 checks every path against the listener's key;
// later Hermes checks a named profile against that profile's own key (upstream PR #72285), and no
// capability says which. The test asks this Hermes (does /p/coder accept coder's own key?) and
// expects the matching answers; the gateway finds out the same way at run time (the refused key
// tried on the listener's root) and says which key to name.

const CODER_KEY = 'sk-coder-own-key-0123456789abcdef0123';
const answer = (summary: string) => JSON.stringify({ summary, next_steps: [] });

describe('/p/<profile> agents against the real Hermes API server', () => {
  const temp = tempDirs();
  let model: ScriptedModel;
  let hermes: RealHermesApi;
  let fx: BridgeDeployment;
  let gw: TestGateway;
  /** Whether this Hermes checks /p/coder against coder's own key (else against the listener's). */
  let ownKeyRule = false;

  before(async () => {
    const dir = temp.make('hmcp-real-hermes-profiles-');
    model = await startScriptedModel({ fallback: { text: 'OK' } });
    hermes = await startRealHermesApi(dir, { model, profiles: { coder: CODER_KEY } });
    fx = makeBridgeDeployment(dir, { hermesEnvFile: hermes.envFile });
    gw = await startTestGateway({ env: fx.env, limits: { bridgeRateLimitPerMinute: 10_000, bridgeSyncTimeoutSeconds: 120 } });
    const own = await fetch(`${hermes.url}/p/coder/v1/models`, { headers: { authorization: `Bearer ${CODER_KEY}` } });
    const listener = await fetch(`${hermes.url}/p/coder/v1/models`, { headers: { authorization: `Bearer ${hermes.key}` } });
    // Exactly one of the two keys opens the profile, whichever rule this Hermes follows.
    assert.notEqual(own.status === 200, listener.status === 200, `own key ${own.status}, listener key ${listener.status}`);
    ownKeyRule = own.status === 200;
    const keyFile = join(fx.dir, 'coder.key');
    writeFileSync(keyFile, `${CODER_KEY}\n`, { mode: 0o600 });
    fx.writeAgents(
      [
        'default: hermes',
        'agents:',
        '  - name: hermes',
        `    base_url: ${hermes.url}`,
        '    key_env: API_SERVER_KEY',
        '  - name: coder-listener-key',
        '    profile: coder',
        `    base_url: ${hermes.url}/p/coder`,
        '    key_env: API_SERVER_KEY',
        // The profile's own .env, as Hermes wrote it (hermes_cli.config.save_env_value): key_env_file.
        '  - name: coder-own-env',
        '    profile: coder',
        `    base_url: ${hermes.url}/p/coder`,
        `    key_env_file: ${join(hermes.profiles.coder!, '.env')}`,
        // A copy of the key, as hermes-mcp-bridge's own registry can name it.
        '  - name: coder-key-file',
        '    profile: coder',
        `    base_url: ${hermes.url}/p/coder`,
        `    key_file: ${keyFile}`,
        '  - name: ghost',
        `    base_url: ${hermes.url}/p/ghost`,
        '    key_env: API_SERVER_KEY',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await gw?.close();
    await hermes?.close();
    await model?.close();
    temp.removeAll();
  });

  const { call, ok } = bridgeToolCaller(() => gw.url, () => fx.token);
  const requestsFor = (id: string) => model.chatRequests().filter(agentTurnFor(id));
  /** The agents whose key this Hermes accepts for /p/coder, and those whose key it refuses. */
  const working = () => (ownKeyRule ? ['coder-own-env', 'coder-key-file'] : ['coder-listener-key']);
  const refused = () => (ownKeyRule ? ['coder-listener-key'] : ['coder-own-env', 'coder-key-file']);

  test('list_agents: the key this Hermes wants opens the profile; a refused key says which key to name; an unserved profile is profile_not_served; no key is shown', async () => {
    const listed = await ok('list_agents', {});
    const byName = Object.fromEntries((listed.agents as Array<Record<string, unknown>>).map((a) => [a.name, a]));
    assert.equal(byName.hermes!.available, true);
    for (const name of working()) {
      assert.equal(byName[name]!.available, true, `${name}: ${JSON.stringify(byName[name])}`);
      assert.equal(byName[name]!.local_profile, 'coder');
      assert.equal(byName[name]!.hint, undefined);
    }
    for (const name of refused()) {
      assert.equal(byName[name]!.available, false, name);
      assert.equal(byName[name]!.unavailable_reason, 'key_rejected');
      // With the listener's key on a Hermes that wants the profile's own, the listener's root takes
      // that key: the hint can say exactly what to do. A profile's own key on 0.19 is refused on the
      // root too, so the hint names both rules.
      assert.match(String(byName[name]!.hint), ownKeyRule ? /accepts this key on its listener but refuses it for \/p\/coder.*profile's own API_SERVER_KEY.*key_env_file/ : /refused the agent's key for \/p\/coder.*Hermes 0\.19 the listener's/);
    }
    // A profile the multiplexing gateway does not serve is 404 on every path, /health included,
    // while the listener's own /health answers.
    assert.equal((await fetch(`${hermes.url}/p/ghost/health`)).status, 404);
    assert.equal(byName.ghost!.available, false);
    assert.equal(byName.ghost!.unavailable_reason, 'profile_not_served');
    assert.match(String(byName.ghost!.hint), /does not serve profile ghost/);
    const text = JSON.stringify(listed);
    assert.ok(!text.includes(hermes.key) && !text.includes(CODER_KEY), 'no key in the answer');
  });

  test('a /p/<profile> agent with the key this Hermes wants runs a sync and an async task in that profile', async () => {
    const [agent] = working();
    model.push({ when: agentTurnFor('coder-sync-1'), text: answer('coder profile answered') });
    const r = await ok('hermes_task', { task: 'Profile task', mode: 'sync', id: 'coder-sync-1', agent });
    assert.equal(r.status, 'completed');
    assert.equal(r.summary, 'coder profile answered');
    assert.match(systemText(requestsFor('coder-sync-1')[0]!), /Active Hermes profile: coder/);

    model.push({ when: agentTurnFor('coder-async-1'), text: answer('coder ran it in the background') });
    const accepted = await ok('hermes_task', { task: 'Profile task in the background', mode: 'async', id: 'coder-async-1', agent });
    assert.equal(accepted.status, 'accepted');
    const done = await waitFor(
      async () => {
        const s = await ok('hermes_status', { run_id: accepted.run_id });
        return s.terminal === true ? s : undefined;
      },
      60_000,
      'the profile run to end',
      100,
    );
    assert.equal(done.status, 'completed');
    assert.equal(done.agent, agent);
    assert.equal((await ok('hermes_result', { id: 'coder-async-1' })).summary, 'coder ran it in the background');
    assert.match(systemText(requestsFor('coder-async-1')[0]!), /Active Hermes profile: coder/);
  });

  test('with ownKeyRule, the key_file copy works as well as key_env_file (the registry form hermes-mcp-bridge reads)', async (t) => {
    if (!ownKeyRule) return t.skip('this Hermes takes the listener key on /p/<profile>: the own-key agents are the refused ones');
    model.push({ when: agentTurnFor('coder-sync-2'), text: answer('via key_file') });
    const r = await ok('hermes_task', { task: 'Profile task', mode: 'sync', id: 'coder-sync-2', agent: 'coder-key-file' });
    assert.equal(r.summary, 'via key_file');
  });

  test('a refused key and an unserved profile are refused before any task is sent, saying why', async () => {
    for (const agent of refused()) {
      const id = `coder-refused-${agent}`;
      const r = await call('hermes_task', { task: 'Profile task', mode: 'sync', id, agent });
      assert.equal(r.isError, true);
      assert.equal(r.data.error, 'agent_unavailable');
      assert.equal(r.data.unavailable_reason, 'key_rejected');
      assert.match(String(r.data.message), ownKeyRule ? /profile's own API_SERVER_KEY/ : /Hermes 0\.19 the listener's/);
      assert.equal(requestsFor(id).length, 0);
    }
    const ghost = await call('hermes_task', { task: 'x', mode: 'async', id: 'ghost-1', agent: 'ghost' });
    assert.equal(ghost.isError, true);
    assert.equal(ghost.data.error, 'agent_unavailable');
    assert.equal(ghost.data.unavailable_reason, 'profile_not_served');
    assert.match(String(ghost.data.message), /does not serve profile ghost/);
    assert.equal(requestsFor('ghost-1').length, 0);
  });

  test('nothing reached past loopback', () => {
    assert.deepEqual(hermes.egress, []);
  });
});
