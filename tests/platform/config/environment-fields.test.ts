import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';

// What the gateway reads from its environment besides its own HERMES_MCP_* settings becomes named
// configuration fields, and one frozen snapshot for the children's environments.

test('HOME, HERMES_PLATFORM / HERMES_SESSION_PLATFORM, the Kanban variables, PATH and HERMES_TIMEZONE become named fields', () => {
  const c = loadConfig({
    HOME: '/home/alice',
    HERMES_PLATFORM: 'telegram',
    HERMES_SESSION_PLATFORM: 'discord',
    HERMES_KANBAN_BOARD: 'ops',
    PATH: '/opt/tools/bin:/usr/bin',
    HERMES_TIMEZONE: 'Europe/Paris',
  });
  assert.equal(c.userHome, '/home/alice');
  assert.equal(c.hermesPlatform, 'telegram', 'HERMES_PLATFORM first');
  assert.equal(c.kanbanContext, true);
  assert.equal(c.helperSearchPath, '/opt/tools/bin:/usr/bin');
  assert.equal(c.hermesTimezone, 'Europe/Paris');

  assert.equal(loadConfig({ HERMES_SESSION_PLATFORM: 'discord' }).hermesPlatform, 'discord', 'then the session platform');
  assert.equal(loadConfig({ HERMES_KANBAN_TASK: 't_1' }).kanbanContext, true);
  const bare = loadConfig({});
  assert.equal(bare.userHome, homedir(), 'the account home without HOME');
  assert.equal(bare.hermesPlatform, undefined);
  assert.equal(bare.kanbanContext, false);
  assert.equal(bare.helperSearchPath, '/usr/bin:/bin');
});

test('inheritedEnvironment is a frozen copy of the defined variables, taken when the configuration is loaded', () => {
  const env: NodeJS.ProcessEnv = { PATH: '/usr/bin', SOME_TOKEN: 'x', UNSET: undefined };
  const c = loadConfig(env);
  assert.deepEqual({ ...c.inheritedEnvironment }, { PATH: '/usr/bin', SOME_TOKEN: 'x' });
  assert.ok(Object.isFrozen(c.inheritedEnvironment));
  env.PATH = '/changed';
  env.LATER = '1';
  assert.equal(c.inheritedEnvironment.PATH, '/usr/bin');
  assert.equal('LATER' in c.inheritedEnvironment, false);
});
