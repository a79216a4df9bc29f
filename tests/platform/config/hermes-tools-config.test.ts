import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';

// Where Hermes is looked for: a standard install under $HERMES_HOME (its source tree, where its
// installer clones it; for a profile home, the one under its root), HERMES_AGENT_SRC /
// HERMES_AGENT_PYTHON, or a whole tool-server command line in HERMES_MCP_HERMES_TOOLS_COMMAND (split
// on whitespace, never a shell); and its budgets. Which interpreter of the source tree runs Hermes
// is found at startup (tests/platform/hermes/locate.test.ts).

test('defaults: the source tree of a standard install, no interpreter or command set; 30 s calls, 120 s media, 30 s start and smoke', () => {
  const home = mkdtempSync(join(tmpdir(), 'hmcp-cfg-'));
  try {
    mkdirSync(join(home, 'hermes-agent'));
    const c = loadConfig({ HERMES_HOME: home });
    assert.equal(c.hermesToolsCommand, undefined);
    assert.equal(c.hermesAgentPython, undefined);
    assert.equal(c.hermesAgentSource, join(home, 'hermes-agent'));
    assert.equal(c.hermesToolsCwd, join(home, 'hermes-agent'));
    assert.equal(c.limits.hermesToolsCallTimeoutSeconds, 30);
    assert.equal(c.limits.hermesToolsMediaTimeoutSeconds, 120);
    assert.equal(c.limits.hermesToolsStartupTimeoutSeconds, 30);
    assert.equal(c.limits.hermesToolsWebSmokeTimeoutSeconds, 30);
    // Without the source tree the cwd is the home (a custom command may not need one).
    assert.equal(loadConfig({ HERMES_HOME: join(home, 'elsewhere') }).hermesToolsCwd, join(home, 'elsewhere'));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a profile home shares the source tree under its root', () => {
  const root = mkdtempSync(join(tmpdir(), 'hmcp-cfg-'));
  try {
    mkdirSync(join(root, 'hermes-agent'));
    mkdirSync(join(root, 'profiles', 'work'), { recursive: true });
    const c = loadConfig({ HERMES_HOME: join(root, 'profiles', 'work') });
    assert.equal(c.hermesAgentSource, join(root, 'hermes-agent'));
    assert.equal(c.hermesToolsCwd, join(root, 'hermes-agent'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('HERMES_AGENT_SRC and HERMES_AGENT_PYTHON move the source tree and name the interpreter', () => {
  assert.equal(loadConfig({ HERMES_HOME: '/h', HERMES_AGENT_SRC: '/srv/hermes-agent' }).hermesAgentSource, '/srv/hermes-agent');
  const c = loadConfig({ HERMES_HOME: '/h', HERMES_AGENT_SRC: '/srv/hermes-agent', HERMES_AGENT_PYTHON: '/opt/venvs/hermes/bin/python' });
  assert.equal(c.hermesAgentPython, '/opt/venvs/hermes/bin/python');
  assert.equal(c.hermesToolsCommand, undefined);
  assert.equal(c.hermesToolsCwd, '/srv/hermes-agent');
});

test('HERMES_MCP_HERMES_TOOLS_COMMAND replaces the command, split on whitespace with no shell', () => {
  const c = loadConfig({ HERMES_HOME: '/h', HERMES_MCP_HERMES_TOOLS_COMMAND: '  /usr/bin/env  python3 -m "agent.x"  ' });
  assert.deepEqual(c.hermesToolsCommand, ['/usr/bin/env', 'python3', '-m', '"agent.x"']);
});

test('HERMES_MCP_WEB_SMOKE_URL names the smoke page (default https://example.com/); anything but an absolute http(s) URL is refused', () => {
  assert.equal(loadConfig({ HERMES_HOME: '/h' }).webSmokeUrl, 'https://example.com/');
  assert.equal(loadConfig({ HERMES_HOME: '/h', HERMES_MCP_WEB_SMOKE_URL: ' http://intranet.example/status ' }).webSmokeUrl, 'http://intranet.example/status');
  for (const bad of ['example.com', 'ftp://example.com/', 'file:///etc/passwd']) assert.throws(() => loadConfig({ HERMES_HOME: '/h', HERMES_MCP_WEB_SMOKE_URL: bad }), /HERMES_MCP_WEB_SMOKE_URL must be/, bad);
});
