import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';
import { loadLimits } from '../../../shared/limits.js';
import { makeHermesHome, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { openSession, prepareJob, workdirIn } from '../../helpers/jobs.js';

// A PTY job's default window must fit the configured maximum: a default above it is a start-up
// error naming both settings, and job_prepare never hands out a window its own schema would refuse.

test('a PTY default above its maximum is refused at load, naming both settings', () => {
  assert.throws(() => loadLimits({ HERMES_MCP_PTY_DEFAULT_COLS: '600' }), /HERMES_MCP_PTY_DEFAULT_COLS \(600\) must not exceed HERMES_MCP_PTY_MAX_COLS \(500\)/);
  assert.throws(() => loadLimits({ HERMES_MCP_PTY_MAX_ROWS: '20' }), /HERMES_MCP_PTY_DEFAULT_ROWS \(40\) must not exceed HERMES_MCP_PTY_MAX_ROWS \(20\)/);
  assert.equal(loadLimits({ HERMES_MCP_PTY_DEFAULT_COLS: '500' }).ptyDefaultCols, 500, 'equal to the maximum is fine');
  const home = makeHermesHome();
  try {
    assert.throws(() => loadConfig({ HERMES_HOME: home, HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_PTY_MAX_COLS: '80' }), (e: unknown) => e instanceof ConfigError && /HERMES_MCP_PTY_MAX_COLS/.test(e.message));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('limits given past the load check still cannot make the default window exceed the maximum', async () => {
  const gw = await startTestGateway({ limits: { ptyDefaultCols: 600, ptyMaxCols: 500, ptyDefaultRows: 300, ptyMaxRows: 200 } });
  try {
    const { client, token } = await openSession(gw.mcpUrl);
    const job = await prepareJob(client, token, 'true', workdirIn(gw.home, 'work', 'capped'), { pty: true });
    const status = await viaBridge(client, 'job_status', job);
    assert.deepEqual(status.data.terminal, { cols: 500, rows: 200 });
    await client.close();
  } finally {
    await gw.close();
  }
});
