import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { HermesToolDefinition } from '../../../shared/worker-protocol/hermes-tools.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import type { HermesInstall } from '../../../supervisor/platform/hermes/locate.js';
import { listToolServer, served, toolServerCommand, whyNot, type ListingDeps, type ToolServerStartup } from '../../../supervisor/tools/hermes-tools/listing.js';
import type { HermesToolResult } from '../../../shared/worker-protocol/hermes-tools.js';
import type { HermesToolsWorker } from '../../../supervisor/tools/hermes-tools/tools.js';
import { tempDirs } from '../../helpers/temp.js';

// What Hermes' tool server offers, asked once at startup (listing.ts), with a stand-in worker
// answering the tools request; the real tool server's listing is real-catalog.test.ts.

const temp = tempDirs();
after(() => temp.removeAll());

const listed: ToolServerStartup = { kind: 'listed', listed: ['web_search'], served: ['web_search'], missing: ['web_extract'], unusable: {} };

test('served and whyNot', () => {
  assert.equal(served(listed, 'web_search'), true);
  assert.equal(served(listed, 'web_extract'), false);
  assert.equal(served({ kind: 'pending' }, 'web_search'), false);
  assert.equal(whyNot(listed, 'web_extract'), "Hermes' tool server does not offer web_extract");
  assert.equal(whyNot({ kind: 'unavailable', status: 'error', reason: 'it crashed' }, 'web_search'), "Hermes' tool server is not running (it crashed)");
});

type ToolsReply = { type: 'tools-result'; id: string; tools?: HermesToolDefinition[]; server?: { name: string; version: string }; failure?: { code: 'HERMES_TOOLS_NOT_INSTALLED' | 'HERMES_TOOLS_FAILED'; message: string } };

function deps(reply: ToolsReply, env: Record<string, string> = {}) {
  const home = temp.make('hmcp-listing-home-');
  const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_HERMES_TOOLS_COMMAND: `${process.execPath} -e 0`, ...env });
  const asked: unknown[] = [];
  let closed = 0;
  const worker = {
    async request(body: unknown, boundMs: number) {
      asked.push([body, boundMs]);
      return reply;
    },
    async close() {
      closed++;
    },
  } as unknown as HermesToolsWorker;
  const call = async (): Promise<HermesToolResult> => ({ content: [] });
  const install = { state: 'not_installed', looked: [], reason: 'no Hermes under the home' } as unknown as HermesInstall;
  const d: ListingDeps = { config, install, command: toolServerCommand(config, install), path: process.env.PATH ?? '/usr/bin:/bin', worker, call, expected: ['web_search', 'web_extract', 'vision_analyze'] };
  return { d, asked, closed: () => closed, home };
}

async function list(d: ListingDeps) {
  let settled: ToolServerStartup | undefined;
  const tools = await listToolServer(d, (s) => (settled = s));
  return { tools, settled };
}

describe('listToolServer', () => {
  test("HERMES_MCP_HERMES_TOOLS_COMMAND is the command; the allowlisted tools listed are catalogued, the others missing, a bad schema unusable; the list asked within the startup budget", async () => {
    const object = { type: 'object', properties: {} };
    const { d, asked, closed } = deps({
      type: 'tools-result',
      id: '1',
      server: { name: 'hermes-tools', version: '0.1' },
      tools: [
        { name: 'web_search', description: 's', inputSchema: object },
        { name: 'vision_analyze', description: 'v', inputSchema: { type: 'string' } },
        { name: 'terminal', description: 'not allowlisted', inputSchema: object },
      ],
    });
    assert.deepEqual(d.command, [process.execPath, '-e', '0']);
    const { tools, settled } = await list(d);
    assert.deepEqual(tools.map((t) => t.name), ['web_search']);
    assert.deepEqual(settled, {
      kind: 'listed',
      server: { name: 'hermes-tools', version: '0.1' },
      listed: ['web_search', 'vision_analyze', 'terminal'],
      served: ['web_search'],
      missing: ['web_extract'],
      unusable: { vision_analyze: 'its input schema is not an object schema (type "string")' },
    });
    const budget = d.config.limits.hermesToolsStartupTimeoutSeconds * 1000;
    assert.deepEqual((asked[0] as unknown[])[0], { type: 'tools', withinMs: budget });
    assert.ok(((asked[0] as unknown[])[1] as number) > budget, 'the bound leaves the worker its slack');
    assert.equal(closed(), 0);
  });

  test("the worker's failure: unavailable (not_installed for its own code), and the worker closed", async () => {
    for (const [code, status] of [['HERMES_TOOLS_NOT_INSTALLED', 'not_installed'], ['HERMES_TOOLS_FAILED', 'error']] as const) {
      const { d, closed } = deps({ type: 'tools-result', id: '1', failure: { code, message: 'why' } });
      const { tools, settled } = await list(d);
      assert.deepEqual(tools, []);
      assert.deepEqual(settled, { kind: 'unavailable', status, reason: 'why' });
      assert.equal(closed(), 1);
    }
    const { d } = deps({ type: 'tools-result', id: '1' });
    assert.deepEqual((await list(d)).settled, { kind: 'unavailable', status: 'error', reason: 'the worker answered without a tool list' });
  });

  test('nothing to start: a missing directory or interpreter is not_installed, the worker never asked', async () => {
    const missingDir = deps({ type: 'tools-result', id: '1', tools: [] }, { HERMES_AGENT_SRC: join(temp.make('hmcp-listing-'), 'absent') });
    assert.deepEqual((await list(missingDir.d)).settled, { kind: 'unavailable', status: 'not_installed', reason: `Hermes' tool server cannot start: its directory ${missingDir.d.config.hermesToolsCwd} does not exist` });
    assert.equal(missingDir.asked.length, 0);
    const noProgram = deps({ type: 'tools-result', id: '1', tools: [] }, { HERMES_MCP_HERMES_TOOLS_COMMAND: 'no-such-program-hmcp --serve' });
    assert.deepEqual((await list(noProgram.d)).settled, { kind: 'unavailable', status: 'not_installed', reason: `Hermes' tool server cannot start: the interpreter "no-such-program-hmcp" was not found` });
    // No command configured and no Hermes found: the locator's own reason.
    const noHermes = deps({ type: 'tools-result', id: '1', tools: [] }, { HERMES_MCP_HERMES_TOOLS_COMMAND: '' });
    assert.equal(noHermes.d.command.slice(1).join(' '), '-m agent.transports.hermes_tools_mcp_server');
    assert.deepEqual((await list(noHermes.d)).settled, { kind: 'unavailable', status: 'not_installed', reason: "Hermes' tool server cannot start: no Hermes under the home" });
  });
});
