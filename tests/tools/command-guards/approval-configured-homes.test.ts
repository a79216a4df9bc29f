import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect, openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The approval guard reads absolute paths under the gateway's configured HERMES_HOME and HOME as
// ~/.hermes/ and ~/ (the patterns' spelling), whatever the supervisor process's own environment
// says. The test gateway's HERMES_HOME and HOME are two throwaway directories; this process's
// HERMES_HOME is pointed elsewhere and its HOME is the runner's. Both commands are harmless if the
// guard failed: the hardline one cannot reach its `||` branch, and the sed finds no config.yaml.

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const temp = tempDirs();
const savedHermesHome = process.env.HERMES_HOME;
let gw: TestGateway;
let userHome: string;

before(async () => {
  userHome = temp.make('hmcp-user-home-');
  gw = await startTestGateway({ env: { HOME: userHome }, limits: { executeCodeDeadlineSeconds: 20 } });
  process.env.HERMES_HOME = join(temp.make('hmcp-decoy-'), '.hermes');
});
after(async () => {
  if (savedHermesHome === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = savedHermesHome;
  await gw.close();
  temp.removeAll();
});

function scratch(name: string): string {
  const dir = join(gw.home, name);
  mkdirSync(dir);
  return dir;
}

test('rm -rf of the configured HOME is hardline: refused before execution', async () => {
  const marker = join(scratch('home-case'), 'ran');
  const { client, token } = await openSession(gw.mcpUrl);
  try {
    const r = await viaBridge(client, 'terminal', { command: `touch ${sh(marker)} && true || rm -rf ${userHome}/` }, token);
    assert.equal(r.data.error, 'COMMAND_BLOCKED', JSON.stringify(r.data));
    assert.equal(r.data.pattern_key, 'recursive delete of home directory');
    assert.equal(existsSync(marker), false, 'nothing ran');
  } finally {
    await client.close();
  }
});

test('an in-place edit of the configured HERMES_HOME/config.yaml needs approval: denied inside execute_code', async () => {
  const marker = join(scratch('hermes-home-case'), 'ran');
  const command = `touch ${sh(marker)} && sed -i s/manual/off/ ${gw.home}/config.yaml`;
  const code = ['from hermes_tools import terminal', 'import json', `print(json.dumps(terminal(${JSON.stringify(command)})))`].join('\n');
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    const r = await viaBridge(client, 'execute_code', { code });
    assert.equal(r.data.status, 'success', String(r.data.output));
    const result = JSON.parse(String(r.data.output).trim()) as Record<string, unknown>;
    assert.equal(result.status, 'blocked', JSON.stringify(result));
    assert.match(String(result.error), /^Command denied: in-place edit of Hermes config\/env\./);
    assert.equal(existsSync(marker), false, 'nothing ran');
  } finally {
    await client.close();
  }
});
