import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { parsePyYaml } from '../../../supervisor/platform/yaml.js';
import { mergeLeaves, OVERLAY_DIR, TOOL_SERVER_SETTINGS } from '../../../supervisor/tools/hermes-tools/managed-overlay.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { toolServerReadiness, toolServerStandIn } from '../../helpers/hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// A whole gateway giving its tool server the managed scope of managed-overlay.ts (whose own unit
// test is managed-overlay.test.ts): the tool server's HERMES_MANAGED_DIR, and /readyz naming it.

const temp = tempDirs();
after(() => temp.removeAll());

const written = (dir: string) => parsePyYaml(readFileSync(join(dir, 'config.yaml'), 'utf8')) as Record<string, unknown>;

function adminDir(config: string): string {
  const dir = temp.make('hmcp-admin-scope-');
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

test('the gateway hands the tool server HERMES_MANAGED_DIR, and /readyz names the scopes', async () => {
  const admin = adminDir('web: {backend: firecrawl}\n');
  const standIn = toolServerStandIn(temp.make('hmcp-tools-'));
  const state = temp.make('hmcp-state-');
  const gw = await startTestGateway({ env: { HERMES_MCP_HERMES_TOOLS_COMMAND: standIn.command, HERMES_MCP_STATE_DIR: state, HERMES_MANAGED_DIR: admin }, inherited: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  try {
    const start = await waitFor(() => standIn.starts()[0], 30_000, 'the tool server started');
    const dir = start.env.HERMES_MANAGED_DIR!;
    assert.equal(dirname(dir), join(state, OVERLAY_DIR));
    assert.deepEqual(written(dir), mergeLeaves({ web: { backend: 'firecrawl' } }, TOOL_SERVER_SETTINGS));
    const r = await waitFor(async () => {
      const now = await toolServerReadiness(gw.url);
      return now.hermesTools.details?.state === 'up' ? now : undefined;
    }, 30_000, 'the tool server up');
    assert.equal(r.hermesTools.details?.managed_dir, dir);
    assert.equal(r.hermesTools.details?.admin_managed_dir, admin);
  } finally {
    await gw.close();
  }
});
