import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hermesEnvironment, hermesInheritance, hermesSettings } from '../../../supervisor/platform/hermes/environment.js';

test('hermesInheritance drops the gateway\'s own settings, the bridge token and NODE_OPTIONS, and keeps the rest', () => {
  const env = {
    PATH: '/usr/bin',
    OPENAI_API_KEY: 'sk-x',
    HERMES_HOME: '/h',
    HERMES_MCP_TOKEN: 't',
    HERMES_MCP_PORT: '3060',
    MCP_AUTH_TOKEN: 'bridge',
    NODE_OPTIONS: '--max-old-space-size=512',
    HERMES_MCPX: 'kept: not the HERMES_MCP_ prefix',
  };
  assert.deepEqual(hermesInheritance(env), { PATH: '/usr/bin', OPENAI_API_KEY: 'sk-x', HERMES_HOME: '/h', HERMES_MCPX: 'kept: not the HERMES_MCP_ prefix' });
});

test('hermesEnvironment sets Hermes\' home, secret redaction, quiet console and sealed lazy installs over what is inherited', () => {
  assert.deepEqual(hermesEnvironment({ PATH: '/usr/bin', HERMES_HOME: '/old', HERMES_QUIET: '0', HERMES_LAZY_INSTALL_TARGET: '/opt/lazy' }, '/srv/hermes'), {
    PATH: '/usr/bin',
    HERMES_HOME: '/srv/hermes',
    HERMES_REDACT_SECRETS: 'true',
    HERMES_QUIET: '1',
    HERMES_DISABLE_LAZY_INSTALLS: '1',
    HERMES_LAZY_INSTALL_TARGET: '/opt/lazy',
  });
});

test('hermesSettings: non-secret HERMES_* and TZ only, then the configured timezone and managed scope', () => {
  const config = {
    inheritedEnvironment: {
      TZ: 'Europe/Berlin',
      HERMES_HOME: '/h',
      HERMES_TIMEZONE: 'UTC',
      HERMES_MCP_ROOTS: '/srv',
      HERMES_API_KEY: 'secret',
      HERMES_GATEWAY_TOKEN: 'secret',
      OPENAI_API_KEY: 'sk-x',
      PATH: '/usr/bin',
      TZDIR: '/usr/share/zoneinfo',
    },
    hermesTimezone: 'Asia/Tokyo',
    hermesManagedDir: '/etc/hermes',
  };
  assert.deepEqual(hermesSettings(config), { TZ: 'Europe/Berlin', HERMES_HOME: '/h', HERMES_TIMEZONE: 'Asia/Tokyo', HERMES_MANAGED_DIR: '/etc/hermes' });
  assert.deepEqual(hermesSettings({ inheritedEnvironment: { HERMES_TIMEZONE: 'UTC', HERMES_MANAGED_DIR: '/x' }, hermesTimezone: undefined, hermesManagedDir: '/opt/managed' }), {
    HERMES_TIMEZONE: 'UTC',
    HERMES_MANAGED_DIR: '/opt/managed',
  });
});
