import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { abortableToolCall, connect, openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

describe('direct terminal through tool_call', () => {
  let gw: TestGateway;
  const markers: string[] = [];
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
    for (const m of markers) killSurvivors(m);
  });

  const tokenClient = () => openSession(gw.mcpUrl);

  test('runs a short command with Hermes’ result shape, timeout 30 injected', async () => {
    const { client, token } = await tokenClient();
    const r = await viaBridge(client, 'terminal', { command: 'echo hello; exit 3' }, token);
    assert.deepEqual(r.data, { output: 'hello', exit_code: 3, error: null });
    await client.close();
  });

  test('background, pty, notify, watch and long timeouts fail before execution', async () => {
    const { client, token } = await tokenClient();
    const flag = join(gw.home, 'ran-flag');
    const cmd = `touch ${flag}`;
    for (const extra of [{ background: true }, { pty: true }, { notify_on_complete: true }, { watch_patterns: ['done'] }, { timeout: 31 }]) {
      const r = await viaBridge(client, 'terminal', { command: cmd, ...extra }, token);
      assert.equal(r.data.error, 'LONG_RUNNING_OPERATION_REQUIRES_JOB', JSON.stringify(extra));
      assert.match(String(r.data.message), /job_prepare/);
    }
    assert.equal(existsSync(flag), false, 'nothing ran');
    await client.close();
  });

  test('needs an owner: a sessionless call without a token is refused', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const r = await viaBridge(client, 'terminal', { command: 'true' });
    assert.equal(r.data.error, 'OWNER_REQUIRED');
    await client.close();
  });

  test('cwd and exports persist per owner and are invisible to other owners', async () => {
    const a = await tokenClient();
    const b = await tokenClient();
    const legacy = await connect(gw.mcpUrl, 'legacy');
    await viaBridge(a.client, 'terminal', { command: 'cd /tmp && export HMCP_OWNER=a' }, a.token);
    const again = await viaBridge(a.client, 'terminal', { command: 'pwd; echo "v=$HMCP_OWNER"' }, a.token);
    assert.equal(again.data.output, '/tmp\nv=a');
    const other = await viaBridge(b.client, 'terminal', { command: 'pwd; echo "v=$HMCP_OWNER"' }, b.token);
    assert.notEqual(other.data.output, '/tmp\nv=a');
    assert.match(String(other.data.output), /v=$/);
    const inSession = await viaBridge(legacy, 'terminal', { command: 'echo "v=$HMCP_OWNER"' });
    assert.equal(inSession.data.output, 'v=', 'a legacy session is its own owner');
    await Promise.all([a.client.close(), b.client.close(), legacy.close()]);
  });

  test('workdir must be inside the allowed roots (after realpath)', async () => {
    const { client, token } = await tokenClient();
    const outside = await viaBridge(client, 'terminal', { command: 'pwd', workdir: '/etc' }, token);
    assert.equal(outside.data.error, 'PATH_OUTSIDE_ROOTS');
    const inside = await viaBridge(client, 'terminal', { command: 'pwd', workdir: gw.home }, token);
    assert.equal(inside.data.output, gw.home);
    await client.close();
  });

  test("a relative workdir is where cd would go from the session's current directory; out of the roots it is refused", async () => {
    const { client, token } = await tokenClient();
    const sub = join(gw.home, 'rel-workdir', 'sub');
    mkdirSync(sub, { recursive: true });
    // A fresh session starts in the first root.
    assert.equal((await viaBridge(client, 'terminal', { command: 'pwd', workdir: '.' }, token)).data.output, realpathSync(gw.home));
    await viaBridge(client, 'terminal', { command: 'cd rel-workdir' }, token);
    assert.equal((await viaBridge(client, 'terminal', { command: 'pwd', workdir: 'sub' }, token)).data.output, realpathSync(sub));
    const refused = await viaBridge(client, 'terminal', { command: 'pwd', workdir: '../..' }, token);
    assert.equal(refused.data.error, 'PATH_OUTSIDE_ROOTS');
    const cwd = join(gw.home, 'rel-workdir');
    assert.equal(refused.data.message, `path is outside the allowed roots (HERMES_MCP_ROOTS): ${resolve(cwd, '../..')} (the relative workdir '../..' resolved against the session's current directory ${cwd})`);
    await client.close();
  });

  test('a timeout gives exit code 124 and kills every escapee', async () => {
    const { client, token } = await tokenClient();
    const marker = newMarker();
    markers.push(marker);
    const r = await viaBridge(client, 'terminal', { command: escapeeCommand(marker), timeout: 2 }, token);
    assert.equal(r.data.exit_code, 124);
    // Hermes' shape: the timeout is told in the output's last line, not as an error.
    assert.equal(r.data.error, null);
    assert.match(String(r.data.output), /\[Command timed out after 2s\]$/);
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });

  test('background children of a finished foreground command do not outlive it', async () => {
    const { client, token } = await tokenClient();
    const marker = newMarker();
    markers.push(marker);
    const r = await viaBridge(client, 'terminal', { command: escapeeCommand(marker, 0) }, token);
    assert.equal(r.data.exit_code, 0);
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    await client.close();
  });

  test('a client disconnect mid-command kills the whole tree', async () => {
    const { client, token } = await tokenClient();
    const marker = newMarker();
    markers.push(marker);
    const call = abortableToolCall(gw.mcpUrl, 'terminal', { command: escapeeCommand(marker), timeout: 30 }, token);
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT);
    call.abort();
    assert.equal(await call.done, 'aborted');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    // The owner keeps working afterwards: a new worker, same cwd/env snapshot.
    const next = await viaBridge(client, 'terminal', { command: 'echo still-here' }, token);
    assert.equal(next.data.output, 'still-here');
    await client.close();
  });

  test('session_close releases the owner’s terminal once its running command has finished', async () => {
    const { client, token } = await tokenClient();
    const marker = newMarker();
    markers.push(marker);
    await viaBridge(client, 'terminal', { command: 'true' }, token);
    const before = gw.gateway.healthFacts().terminal_workers as number;
    const running = viaBridge(client, 'terminal', { command: escapeeCommand(marker, 1) }, token);
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT);
    const closed = await viaBridge(client, 'session_close', {}, token);
    assert.equal(closed.data.released, 'after_running_calls_finish');
    assert.equal((await running).data.exit_code, 0, 'the running command was allowed to finish');
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    const end = Date.now() + 3000;
    while ((gw.gateway.healthFacts().terminal_workers as number) >= before && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.equal(gw.gateway.healthFacts().terminal_workers, before - 1, 'the owner’s worker is gone');
    await client.close();
  });

  test('secrets in command output are redacted', async () => {
    const { client, token } = await tokenClient();
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const r = await viaBridge(client, 'terminal', { command: `echo token ${secret}` }, token);
    assert.ok(!String(r.data.output).includes(secret));
    assert.match(String(r.data.output), /token ghp_/);
    await client.close();
  });
});

test('under an enforced resource policy direct terminal is refused before execution', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hmcp-policy-'));
  const gw = await startTestGateway({ env: { HERMES_MCP_RESOURCE_POLICY: join(dir, 'policy.json') } });
  try {
    const client = await connect(gw.mcpUrl, 'legacy');
    const r = await viaBridge(client, 'terminal', { command: `touch ${join(dir, 'ran')}` });
    assert.equal(r.data.error, 'RESOURCE_ISOLATION_REQUIRES_JOB');
    assert.equal(existsSync(join(dir, 'ran')), false);
    await client.close();
  } finally {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
