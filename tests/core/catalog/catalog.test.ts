import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolDefinition, ToolSource } from '../../../supervisor/core/tool-types.js';
import { Catalog } from '../../../supervisor/core/catalog/catalog.js';
import { loadToolPolicy } from '../../../supervisor/core/catalog/policy.js';

const policy = loadToolPolicy();

function tool(name: string, inputSchema: Record<string, unknown> = { type: 'object' }): ToolDefinition {
  return {
    name,
    description: `tool ${name}`,
    inputSchema: inputSchema as ToolDefinition['inputSchema'],
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    handler: async () => ({ structured: {} }),
  };
}
const source = (name: ToolSource['name'], ...names: string[]): ToolSource => ({ name, tools: () => names.map((n) => tool(n)) });

test('the hermes source is default-deny: only allowlisted names enter, the rest are reported as dropped', async () => {
  const catalog = await Catalog.assemble([source('hermes', 'read_file', 'skill_manage', 'some_new_tool', 'browser_cdp', 'computer_use')], policy);
  assert.deepEqual(catalog.names(), ['read_file']);
  assert.deepEqual(
    catalog.report.dropped.map((d) => `${d.name}:${d.reason}`).sort(),
    ['browser_cdp:forbidden', 'computer_use:forbidden', 'skill_manage:forbidden', 'some_new_tool:not_allowlisted'],
  );
});

test('forbidden names can never enter, even from a gateway-owned source (startup fails)', async () => {
  for (const name of ['browser_exec', 'computer_use', 'memory', 'todo', 'text_to_speech', 'kanban_create']) {
    await assert.rejects(Catalog.assemble([source('guarded', name)], policy), /forbidden tool/);
  }
});

test('a name collision between sources fails startup', async () => {
  await assert.rejects(Catalog.assemble([source('hermes', 'read_file'), source('native', 'read_file')], policy), /collision "read_file" between sources "hermes" and "native"/);
});

test('a source registered twice fails startup', async () => {
  await assert.rejects(Catalog.assemble([source('graph', 'a'), source('graph', 'b')], policy), /registered twice/);
});

test('a tool whose input schema does not compile fails startup', async () => {
  const bad: ToolSource = { name: 'graph', tools: () => [tool('inspect_code_graph', { type: 'object', properties: { cwd: { type: 'no-such-type' } } })] };
  await assert.rejects(Catalog.assemble([bad], policy), /does not compile/);
});

test('the catalog is frozen: entries cannot be changed after assembly', async () => {
  const catalog = await Catalog.assemble([source('lsp', 'lsp_hover')], policy);
  const entry = catalog.get('lsp_hover')!;
  assert.throws(() => {
    (entry.tool as { description: string }).description = 'changed';
  }, TypeError);
  assert.equal(Object.isFrozen(entry), true);
});
