import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { makeHermesHome } from '../../helpers/hermes.js';

// skills_list and skill_view over MCP get Hermes' dispatch coercion (supervisor/core/hermes-args.ts)
// like every Hermes tool; their arguments are all strings, so it changes nothing a model sends: a
// skill named "2024" is found by that string (not refused as a number), and a number sent for a
// name, which Hermes' dispatch leaves alone, stays INVALID_ARGUMENTS.

const home = mkdtempSync(join(tmpdir(), 'skills-args-'));
let gw: TestGateway;
before(async () => {
  // A skill written by Hermes' own skill_manage create path.
  makeHermesHome(home, { skills: { '2024': '---\nname: "2024"\ndescription: numbers as names\n---\nBody of 2024.\n' } });
  gw = await startTestGateway({ home });
});
after(async () => {
  await gw.close();
  rmSync(home, { recursive: true, force: true });
});

test('skill_view takes "2024" as the string it is; 2024 (a number) is INVALID_ARGUMENTS', async () => {
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const listed = await viaBridge(client, 'skills_list', { category: 'true' });
    assert.equal(listed.isError, false, JSON.stringify(listed.data));
    const { data, isError } = await viaBridge(client, 'skill_view', { name: '2024' });
    assert.equal(isError, false, JSON.stringify(data));
    assert.equal(data.name, '2024');
    assert.match(String(data.content), /Body of 2024\./);
    const bad = await viaBridge(client, 'skill_view', { name: 2024 });
    assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
  } finally {
    await client.close();
  }
});
