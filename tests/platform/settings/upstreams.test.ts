import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '../../../supervisor/platform/settings/values.js';
import { graphSettings, hermesInstallSettings } from '../../../supervisor/platform/settings/upstreams.js';
import { tempDirs } from '../../helpers/temp.js';

// The graph upstream's and the Hermes install's settings: defaults, values, refusals.

const dirs = tempDirs();
after(() => dirs.removeAll());

function refuses(parse: () => unknown, message: RegExp): void {
  assert.throws(parse, (e: unknown) => e instanceof ConfigError && message.test(e.message));
}

test('the graph upstream: samchon-graph, inspect_code_graph and TTSC_GRAPH_BINARY by default', () => {
  assert.deepEqual(graphSettings({}), { graphCommand: ['samchon-graph'], graphTool: 'inspect_code_graph', graphEnvironment: {} });
  assert.deepEqual(graphSettings({ TTSC_GRAPH_BINARY: '/t' }).graphEnvironment, { TTSC_GRAPH_BINARY: '/t' });
  const set = graphSettings({ HERMES_MCP_GRAPH_COMMAND: 'g --x', HERMES_MCP_GRAPH_TOOL: 'a.b-c_d', HERMES_MCP_GRAPH_ENV_PASSTHROUGH: ' A ,B,', A: '', TTSC_GRAPH_BINARY: '/t' });
  assert.deepEqual(set, { graphCommand: ['g', '--x'], graphTool: 'a.b-c_d', graphEnvironment: { A: '' } });
  refuses(() => graphSettings({ HERMES_MCP_GRAPH_TOOL: 'x'.repeat(129) }), /^HERMES_MCP_GRAPH_TOOL must be an MCP tool name/);
  refuses(() => graphSettings({ HERMES_MCP_GRAPH_ENV_PASSTHROUGH: 'A-B' }), /^HERMES_MCP_GRAPH_ENV_PASSTHROUGH must list variable names, got "A-B"/);
  refuses(() => graphSettings({ HERMES_MCP_GRAPH_COMMAND: 'x/graph' }), /^HERMES_MCP_GRAPH_COMMAND must name its program/);
});

test("the Hermes install: the home's checkout, else its profile root's; the home is the cwd when neither exists", () => {
  const root = dirs.make('hmcp-upstreams-');
  const home = join(root, 'profiles', 'p');
  mkdirSync(home, { recursive: true });
  const none = hermesInstallSettings({}, home);
  assert.deepEqual(none, {
    hermesToolsCommand: undefined,
    hermesAgentPython: undefined,
    hermesAgentSource: join(home, 'hermes-agent'),
    hermesToolsCwd: home,
    hermesVersion: undefined,
    webSmokeUrl: 'https://example.com/',
  });
  mkdirSync(join(root, 'hermes-agent'));
  assert.equal(hermesInstallSettings({}, home).hermesAgentSource, join(root, 'hermes-agent'));
  assert.equal(hermesInstallSettings({}, home).hermesToolsCwd, join(root, 'hermes-agent'));
});

test('the Hermes install: its variables', () => {
  const s = hermesInstallSettings(
    { HERMES_AGENT_SRC: '~/src', HERMES_AGENT_PYTHON: '~/py', HERMES_MCP_HERMES_TOOLS_COMMAND: ' py -m m ', HERMES_MCP_HERMES_VERSION: '0.22.2.post1', HERMES_MCP_WEB_SMOKE_URL: 'https://intranet.example' },
    '/nonexistent-home',
  );
  assert.deepEqual(s, {
    hermesToolsCommand: ['py', '-m', 'm'],
    hermesAgentPython: join(homedir(), 'py'),
    hermesAgentSource: join(homedir(), 'src'),
    hermesToolsCwd: join(homedir(), 'src'),
    hermesVersion: '0.22.2.post1',
    webSmokeUrl: 'https://intranet.example/',
  });
  assert.equal(hermesInstallSettings({ HERMES_MCP_HERMES_TOOLS_COMMAND: '  ', HERMES_MCP_HERMES_VERSION: ' ' }, '/h').hermesToolsCommand, undefined);
  refuses(() => hermesInstallSettings({ HERMES_MCP_HERMES_VERSION: 'latest' }, '/h'), /^HERMES_MCP_HERMES_VERSION must be a Hermes Agent version/);
  refuses(() => hermesInstallSettings({ HERMES_MCP_WEB_SMOKE_URL: '/relative' }, '/h'), /^HERMES_MCP_WEB_SMOKE_URL must be an absolute http\(s\) URL/);
  refuses(() => hermesInstallSettings({ HERMES_MCP_WEB_SMOKE_URL: 'file:///etc/passwd' }, '/h'), /^HERMES_MCP_WEB_SMOKE_URL must be an http\(s\) URL/);
});
