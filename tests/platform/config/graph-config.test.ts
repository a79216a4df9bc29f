import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';

// The graph settings: the upstream's argv (split on whitespace, never a shell), the one tool it
// must list, the variables passed to it beyond the workers' scrubbed environment, and the limits.

test('defaults: samchon-graph, tool inspect_code_graph, TTSC_GRAPH_BINARY passed when set, 4 sessions, 120 s calls', () => {
  const c = loadConfig({ TTSC_GRAPH_BINARY: '/opt/ttscgraph' });
  assert.deepEqual(c.graphCommand, ['samchon-graph']);
  assert.equal(c.graphTool, 'inspect_code_graph');
  assert.deepEqual(c.graphEnvironment, { TTSC_GRAPH_BINARY: '/opt/ttscgraph' });
  assert.deepEqual(loadConfig({}).graphEnvironment, {}, 'an unset passthrough variable is not invented');
  assert.equal(c.limits.graphMaxSessions, 4);
  assert.equal(c.limits.graphCallTimeoutSeconds, 120);
  assert.equal(c.limits.graphStartupTimeoutSeconds, 15);
});

test('HERMES_MCP_GRAPH_COMMAND is split on whitespace with no shell; a blank one is the default', () => {
  assert.deepEqual(loadConfig({ HERMES_MCP_GRAPH_COMMAND: '  /opt/bin/samchon-graph   --mode static --language "typescript"  ' }).graphCommand, ['/opt/bin/samchon-graph', '--mode', 'static', '--language', '"typescript"']);
  assert.deepEqual(loadConfig({ HERMES_MCP_GRAPH_COMMAND: '   ' }).graphCommand, ['samchon-graph']);
});

test('a command setting names its program on PATH or by an absolute path, never relative to a project root', () => {
  for (const variable of ['HERMES_MCP_GRAPH_COMMAND', 'HERMES_MCP_HERMES_TOOLS_COMMAND']) {
    assert.throws(() => loadConfig({ [variable]: 'bin/samchon-graph --mode static' }), (e: unknown) => e instanceof ConfigError && new RegExp(`${variable} must name its program`).test((e as Error).message));
    assert.throws(() => loadConfig({ [variable]: './graph' }), ConfigError);
  }
  assert.deepEqual(loadConfig({ HERMES_MCP_GRAPH_COMMAND: '/opt/graph/bin/samchon-graph --mode static' }).graphCommand, ['/opt/graph/bin/samchon-graph', '--mode', 'static']);
  assert.deepEqual(loadConfig({ HERMES_MCP_HERMES_TOOLS_COMMAND: 'python3 -m x' }).hermesToolsCommand, ['python3', '-m', 'x']);
});

test('HERMES_MCP_GRAPH_TOOL must be an MCP tool name', () => {
  assert.equal(loadConfig({ HERMES_MCP_GRAPH_TOOL: 'inspect_typescript_graph' }).graphTool, 'inspect_typescript_graph');
  for (const bad of ['two words', 'x'.repeat(129), 'semi;colon']) {
    assert.throws(() => loadConfig({ HERMES_MCP_GRAPH_TOOL: bad }), (e: unknown) => e instanceof ConfigError && /HERMES_MCP_GRAPH_TOOL/.test((e as Error).message));
  }
});

test('HERMES_MCP_GRAPH_ENV_PASSTHROUGH names the variables handed to the upstream; empty passes none; a bad name is refused', () => {
  const env = { TTSC_GRAPH_BINARY: '/opt/ttscgraph', GRAPH_CACHE: '/var/cache/graph', GITHUB_TOKEN: 'ghp_x' };
  assert.deepEqual(loadConfig({ ...env, HERMES_MCP_GRAPH_ENV_PASSTHROUGH: 'GRAPH_CACHE, TTSC_GRAPH_BINARY' }).graphEnvironment, { GRAPH_CACHE: '/var/cache/graph', TTSC_GRAPH_BINARY: '/opt/ttscgraph' });
  assert.deepEqual(loadConfig({ ...env, HERMES_MCP_GRAPH_ENV_PASSTHROUGH: '' }).graphEnvironment, {});
  assert.throws(() => loadConfig({ HERMES_MCP_GRAPH_ENV_PASSTHROUGH: 'A=B' }), (e: unknown) => e instanceof ConfigError && /HERMES_MCP_GRAPH_ENV_PASSTHROUGH/.test((e as Error).message));
});

test('graph limits are overridable like every limit', () => {
  const c = loadConfig({ HERMES_MCP_GRAPH_MAX_SESSIONS: '2', HERMES_MCP_GRAPH_CALL_TIMEOUT_SECONDS: '30', HERMES_MCP_GRAPH_STARTUP_TIMEOUT_SECONDS: '5' });
  assert.deepEqual([c.limits.graphMaxSessions, c.limits.graphCallTimeoutSeconds, c.limits.graphStartupTimeoutSeconds], [2, 30, 5]);
  assert.throws(() => loadConfig({ HERMES_MCP_GRAPH_MAX_SESSIONS: '0' }), ConfigError);
});
