import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gatewayMain } from '../../../bench/launch.js';
import { runGatewayBin, startGatewayBin } from '../../helpers/gateway-bin.js';
import { tempDirs } from '../../helpers/temp.js';

// The real bin refuses to start on a state directory another account could change (its workers'
// sockets and scripts live there), with STATE_DIR_UNSAFE and exit 2, before it puts anything in it;
// the same directory made private again is used.

const dirs = tempDirs();
after(() => dirs.removeAll());

function env(stateDir: string): Record<string, string> {
  const home = dirs.make('hmcp-statedir-home-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  return {
    PATH: '/usr/bin:/bin',
    HOME: home,
    HERMES_HOME: home,
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_STATE_DIR: stateDir,
    HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,browser,lsp,graph,hermes_tools,web_provider',
    HERMES_MCP_PORT: '0',
  };
}

test('a group- or world-writable state directory refuses the start; made 0700 again, it is used', async () => {
  const state = join(dirs.make('hmcp-statedir-'), 'state');
  mkdirSync(state);
  chmodSync(state, 0o777);
  const refused = await runGatewayBin(gatewayMain, env(state));
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, new RegExp(`STATE_DIR_UNSAFE: ${state} is writable by others \\(mode 777\\)`));
  assert.match(refused.stderr, /set HERMES_MCP_STATE_DIR to a directory only you can write/);
  assert.deepEqual(readdirSync(state), [], 'nothing was made in it');

  chmodSync(state, 0o700);
  const gateway = await startGatewayBin(gatewayMain, env(state));
  const { code } = await gateway.stop();
  assert.equal(code, 0);
});

test('a state directory that is a symbolic link (even to a private directory of this account) refuses the start', async () => {
  const base = dirs.make('hmcp-statedir-');
  const target = join(base, 'target');
  mkdirSync(target, { mode: 0o700 });
  const link = join(base, 'state');
  symlinkSync(target, link);
  const refused = await runGatewayBin(gatewayMain, env(link));
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, new RegExp(`STATE_DIR_UNSAFE: ${link} is a symbolic link`));
  assert.deepEqual(readdirSync(target), [], 'nothing was made through the link');
});
