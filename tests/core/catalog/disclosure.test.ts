import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { defaultLimits } from '../../../shared/limits.js';
import { Catalog } from '../../../supervisor/core/catalog/catalog.js';
import { DISCOVERY_TOOL_NAMES, discoveryTools } from '../../../supervisor/core/catalog/disclosure.js';
import { loadToolPolicy } from '../../../supervisor/core/catalog/policy.js';
import type { CallContext, ToolDefinition, ToolSource } from '../../../supervisor/core/tool-types.js';

// tool_search and tool_describe over a frozen catalog built here from made-up sources: their
// schemas, what they answer, and the areas tool_search's description names. Served through a whole
// gateway (both eras, tool_call, redaction) in discovery-gateway.test.ts.

const policy = loadToolPolicy();
const limits = defaultLimits();

function tool(name: string, description: string, inputSchema: Record<string, unknown> = { type: 'object' }): ToolDefinition {
  return {
    name,
    description,
    inputSchema: inputSchema as ToolDefinition['inputSchema'],
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    handler: async () => ({ structured: {} }),
  };
}

const ctx: CallContext = {
  owner: { id: `request:${randomUUID()}`, kind: 'request' },
  signal: new AbortController().signal,
  callId: randomUUID(),
  era: 'modern',
  callNested: () => Promise.reject(new Error('no nested calls here')),
};

const LONG = 'Read a text file with line numbers. '.repeat(20);

async function built(extra: readonly ToolSource[] = []): Promise<{ search: ToolDefinition; describe: ToolDefinition; catalog: Catalog }> {
  const catalog = await Catalog.assemble(
    [
      {
        name: 'native',
        tools: () => [
          tool('read_file', LONG, { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer' } }, required: ['path'] }),
          tool('terminal', 'Run a shell command.', { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }),
        ],
      },
      { name: 'graph', configured: false, tools: () => [tool('inspect_code_graph', 'Query the code graph.')] },
      ...extra,
    ],
    policy,
  );
  const [search, describe] = discoveryTools({ catalog, limits });
  return { search: search!, describe: describe!, catalog };
}

test('the three discovery names; tool_search and tool_describe are built, read-only, with the limits in their schemas', async () => {
  assert.deepEqual(DISCOVERY_TOOL_NAMES, ['tool_search', 'tool_describe', 'tool_call']);
  const { search, describe } = await built();
  assert.equal(search.name, 'tool_search');
  assert.equal(describe.name, 'tool_describe');
  for (const t of [search, describe]) assert.deepEqual(t.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true });
  const queries = (search.inputSchema.properties as Record<string, Record<string, unknown>>).queries!;
  assert.equal(queries.maxItems, limits.searchMaxQueries);
  assert.deepEqual((search.inputSchema.properties as Record<string, unknown>).limit, {
    type: 'integer', minimum: 1, maximum: limits.searchMaxLimit, default: limits.searchDefaultLimit, description: 'Matches per query.',
  });
  assert.equal(((describe.inputSchema.properties as Record<string, Record<string, unknown>>).names!).maxItems, limits.describeMaxNames);
});

test("tool_search's description names web and vision only where Hermes' tool server serves such a tool", async () => {
  const { search } = await built();
  assert.match(search.description, /\(native file\/terminal\/code execution, background jobs, browser, memory, code graph, LSP, guarded Hermes capabilities\)/);
  const withHermes = await built([{ name: 'hermes', tools: () => [tool('web_extract', 'Extract a page.'), tool('vision_analyze', 'Look at an image.')] }]);
  assert.match(withHermes.search.description, /browser, web, vision and images, memory,/);
});

test('tool_search: the best matches per query, short descriptions, required fields, total_available', async () => {
  const { search } = await built();
  const { structured } = await search.handler({ queries: ['terminal', 'code graph'], limit: 2 }, ctx);
  assert.deepEqual(structured, {
    total_available: 3,
    results: [
      { query: 'terminal', matches: ['terminal'] },
      { query: 'code graph', matches: ['inspect_code_graph'] },
    ],
    tools: {
      terminal: { source: 'native', description: 'Run a shell command.', required: ['command'] },
      inspect_code_graph: { source: 'graph', description: 'Query the code graph.', required: [] },
    },
  });
  const read = await search.handler({ queries: ['read_file'] }, ctx);
  const described = (read.structured as { tools: Record<string, { description: string; required: string[] }> }).tools.read_file!;
  assert.equal(described.description.length, limits.searchDescriptionMaxChars);
  assert.equal(described.description, LONG.slice(0, limits.searchDescriptionMaxChars - 3) + '...');
  assert.deepEqual(described.required, ['path']);
});

test('tool_search uses the default limit when none is given', async () => {
  const many = Array.from({ length: 8 }, (_, i) => tool(`fixture_${String.fromCharCode(97 + i)}`, 'Shared words.'));
  const { search } = await built([{ name: 'gateway', tools: () => many }]);
  const { structured } = await search.handler({ queries: ['shared words'] }, ctx);
  const matches = (structured as { results: { matches: string[] }[] }).results[0]!.matches;
  assert.deepEqual(matches, ['fixture_a', 'fixture_b', 'fixture_c', 'fixture_d', 'fixture_e'].slice(0, limits.searchDefaultLimit));
});

test('tool_describe returns the full description, schema, source and annotations; unknown names once each under not_found', async () => {
  const { describe, catalog } = await built();
  const { structured } = await describe.handler({ names: ['terminal', 'nope', 'browser_cdp', 'nope'] }, ctx);
  const terminal = catalog.get('terminal')!.tool;
  assert.deepEqual(structured, {
    tools: { terminal: { description: 'Run a shell command.', parameters: terminal.inputSchema, source: 'native', annotations: terminal.annotations } },
    not_found: ['nope', 'browser_cdp'],
  });
});
