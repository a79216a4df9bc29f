import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { hermes } from '../../helpers/hermes.js';

// write_file over MCP, fronting the pinned Hermes, reads `cross_profile` sent as a string as
// Hermes' dispatch does (supervisor/core/hermes-args.ts): "true" opts out of the cross-profile
// guard, "false" keeps it, "yes" is INVALID_ARGUMENTS. The gateway's home is a named profile's, so
// the default profile's skills are another profile's.

const root = realpathSync(mkdtempSync(join(tmpdir(), 'write-args-')));
const home = join(root, 'hermes/profiles/work');
let gw: TestGateway;
before(async () => {
  mkdirSync(home, { recursive: true });
  gw = await startTestGateway({ home, env: { HERMES_AGENT_PYTHON: hermes().python, HERMES_MCP_ROOTS: root } });
});
after(async () => {
  await gw.close();
  rmSync(root, { recursive: true, force: true });
});

test('write_file takes cross_profile "true" as true and "false" as false; "yes" is INVALID_ARGUMENTS', async () => {
  const guarded = !new HermesRelease(hermes().version).has('fileWritesNoCrossProfile');
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const other = join(root, 'hermes/skills/demo/SKILL.md');
    const kept = await viaBridge(client, 'write_file', { path: other, content: '---\nname: demo\n---\n', cross_profile: 'false' });
    if (guarded) {
      // Hermes 0.19: the guard applies unless cross_profile is true.
      assert.equal(kept.data.error, 'FILE_BLOCKED', JSON.stringify(kept.data));
      assert.match(String(kept.data.message), /Cross-profile write blocked/);
      assert.equal(existsSync(other), false);
    } else {
      // Hermes 0.22 has no such guard: the write is made either way.
      assert.equal(kept.isError, false, JSON.stringify(kept.data));
    }
    const opted = await viaBridge(client, 'write_file', { path: other, content: '---\nname: demo\n---\nv2\n', cross_profile: ' TRUE ' });
    assert.equal(opted.isError, false, JSON.stringify(opted.data));
    assert.equal(readFileSync(other, 'utf8'), '---\nname: demo\n---\nv2\n');
    const bad = await viaBridge(client, 'write_file', { path: join(root, 'x.txt'), content: 'x', cross_profile: 'yes' });
    assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
    assert.equal(existsSync(join(root, 'x.txt')), false);
  } finally {
    await client.close();
  }
});
