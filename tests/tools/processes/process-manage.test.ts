import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

// Processes enter the registry through the jobs adapter; here the tests start them through the
// same registry entry point, then drive process_manage over real MCP calls.

describe('process_manage', () => {
  let gw: TestGateway;
  const markers: string[] = [];
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
    for (const m of markers) killSurvivors(m);
  });

  async function owner() {
    const { client, token } = await openSession(gw.mcpUrl);
    const ownerId = `cap:${gw.gateway.capabilities.resolve(token).id}`;
    return { client, token, ownerId };
  }

  test('list, poll, log and wait follow Hermes’ shapes for the owner’s process', async () => {
    const { client, token, ownerId } = await owner();
    const p = await gw.native.processes.start(ownerId, 'echo one; echo two; sleep 0.3; echo three', gw.home);
    const list = await viaBridge(client, 'process_manage', { action: 'list' }, token);
    const procs = list.data.processes as Array<{ session_id: string; status: string }>;
    assert.deepEqual(procs.map((x) => x.session_id), [p.id]);
    const waited = await viaBridge(client, 'process_manage', { action: 'wait', session_id: p.id, timeout: 10 }, token);
    assert.equal(waited.data.status, 'exited');
    assert.equal(waited.data.exit_code, 0);
    assert.equal(waited.data.output, 'one\ntwo\nthree\n');
    const log = await viaBridge(client, 'process_manage', { action: 'log', session_id: p.id, limit: 2 }, token);
    assert.equal(log.data.output, 'two\nthree');
    assert.equal(log.data.total_lines, 3);
    const poll = await viaBridge(client, 'process_manage', { action: 'poll', session_id: p.id }, token);
    assert.equal(poll.data.status, 'exited');
    await client.close();
  });

  test('another owner’s process id gets the same not-found as a missing id', async () => {
    const a = await owner();
    const b = await owner();
    const p = await gw.native.processes.start(a.ownerId, 'sleep 5', gw.home);
    const foreign = await viaBridge(b.client, 'process_manage', { action: 'kill', session_id: p.id }, b.token);
    const missing = await viaBridge(b.client, 'process_manage', { action: 'kill', session_id: 'proc_000000000000' }, b.token);
    assert.equal(foreign.data.error, 'PROCESS_NOT_FOUND');
    assert.equal(missing.data.error, 'PROCESS_NOT_FOUND');
    assert.equal(String(foreign.data.message).replace(p.id, 'ID'), String(missing.data.message).replace('proc_000000000000', 'ID'));
    assert.deepEqual((await viaBridge(b.client, 'process_manage', { action: 'list' }, b.token)).data.processes, []);
    assert.equal(p.exited, false, 'the foreign kill did nothing');
    await viaBridge(a.client, 'process_manage', { action: 'kill', session_id: p.id }, a.token);
    await Promise.all([a.client.close(), b.client.close()]);
  });

  test('write/submit reach stdin; kill ends the whole tree', async () => {
    const { client, token, ownerId } = await owner();
    const marker = newMarker();
    markers.push(marker);
    const echo = await gw.native.processes.start(ownerId, 'read line; echo "got $line"', gw.home);
    await viaBridge(client, 'process_manage', { action: 'submit', session_id: echo.id, data: 'hello' }, token);
    const waited = await viaBridge(client, 'process_manage', { action: 'wait', session_id: echo.id, timeout: 5 }, token);
    assert.equal(waited.data.output, 'got hello\n');
    const tree = await gw.native.processes.start(ownerId, escapeeCommand(marker), gw.home);
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT);
    const killed = await viaBridge(client, 'process_manage', { action: 'kill', session_id: tree.id }, token);
    assert.equal(killed.data.status, 'killed');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });

  test('waits are bounded (at most 25 s per call) and say so', async () => {
    const { client, token, ownerId } = await owner();
    const p = await gw.native.processes.start(ownerId, 'sleep 600', gw.home);
    const started = performance.now();
    const r = await viaBridge(client, 'process_manage', { action: 'wait', session_id: p.id, timeout: 1 }, token);
    assert.equal(r.data.status, 'timeout');
    assert.ok(performance.now() - started < 5000);
    await viaBridge(client, 'process_manage', { action: 'kill', session_id: p.id }, token);
    await client.close();
  });

  test('session_close kills the owner’s processes and their escapees', async () => {
    const { client, token, ownerId } = await owner();
    const marker = newMarker();
    markers.push(marker);
    await gw.native.processes.start(ownerId, escapeeCommand(marker), gw.home);
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT);
    await viaBridge(client, 'session_close', {}, token);
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });
});
