import { isDeepStrictEqual } from 'node:util';
import { call } from '../helpers/gateway.js';
import { compareSurface, loadCases, SurfaceFixture, type FidelityCase } from './harness.js';

// The terminal and process_manage schemas against Hermes' own (TERMINAL_SCHEMA, PROCESS_SCHEMA of
// the pinned Hermes): which properties each tool has, with their types, minimums, defaults, enums
// and descriptions, and the tool's name, description and required list. The gateway's schema is
// what tool_describe answers, built at startup for the Hermes it follows (the fidelity gateway
// follows the pinned one).

interface SchemaCase extends FidelityCase {
  tool: 'terminal' | 'process_manage';
  property?: string;
}

interface Described {
  description: string;
  parameters: { properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: unknown };
}

const fx = new SurfaceFixture('schema');
const cases = loadCases<SchemaCase>('terminal_schema');

/** The same shape the driver answers with (drivers/terminal_schema.py). */
function answer(c: SchemaCase, name: string, tool: Described): unknown {
  const p = tool.parameters;
  if (c.property === undefined) return { name, description: tool.description, required: p.required ?? null, additionalProperties: p.additionalProperties ?? null };
  const prop = p.properties[c.property];
  return prop === undefined ? { present: false } : { present: true, ...prop };
}

compareSurface<SchemaCase>({
  surface: 'terminal_schema',
  cases,
  fixture: fx,
  async setUp() {
    await fx.gateway();
  },
  hermes: (list) => fx.driver('terminal_schema.py', { cases: list.map((c) => ({ id: c.id, tool: c.tool, property: c.property ?? null })) }),
  gateway: {
    async mcp(list) {
      const { data } = await call(fx.gw.client, 'tool_describe', { names: ['terminal', 'process_manage'] });
      const tools = data.tools as Record<string, Described>;
      return new Map(list.map((c) => [c.id, answer(c, c.tool, tools[c.tool]!)]));
    },
  },
  checks: {
    // process_manage's action enum: Hermes' actions, in Hermes' order, and resize after them.
    'hermes-enum-and-resize': ({ caseId, field, gateway: g, hermes: h }) =>
      caseId === 'process_manage.action' && field === 'enum' && Array.isArray(h) && !h.includes('resize') && isDeepStrictEqual(g, [...(h as unknown[]), 'resize']),
  },
});
