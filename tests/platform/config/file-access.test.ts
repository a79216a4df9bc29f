import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';

// HERMES_MCP_FILE_ACCESS: `roots` (default) or `hermes`; anything else stops the gateway at startup.

test('HERMES_MCP_FILE_ACCESS defaults to roots and accepts hermes', () => {
  assert.equal(loadConfig({}).fileAccess, 'roots');
  assert.equal(loadConfig({ HERMES_MCP_FILE_ACCESS: '' }).fileAccess, 'roots');
  assert.equal(loadConfig({ HERMES_MCP_FILE_ACCESS: 'roots' }).fileAccess, 'roots');
  assert.equal(loadConfig({ HERMES_MCP_FILE_ACCESS: 'hermes' }).fileAccess, 'hermes');
});

test('any other HERMES_MCP_FILE_ACCESS value is a ConfigError naming the choices', () => {
  for (const bad of ['Hermes', 'off', 'all', 'roots ']) {
    assert.throws(
      () => loadConfig({ HERMES_MCP_FILE_ACCESS: bad }),
      (e: unknown) => e instanceof ConfigError && /HERMES_MCP_FILE_ACCESS must be one of roots, hermes/.test((e as Error).message),
      bad,
    );
  }
});
