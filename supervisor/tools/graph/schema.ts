import type { GraphToolDefinition } from '../../../shared/worker-protocol/graph.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { isJsonObject } from '../../platform/json-object.js';

// The public `inspect_code_graph` schema. The catalog is frozen at startup, so it is built once:
// from the upstream tool's own input schema when the upstream answered at startup (plus a required,
// first `cwd`, the routing argument the upstream does not have), else from a built-in stand-in
// shaped like Samchon Graph's input (question / draft / review / request), permissive enough that
// a call reaches the upstream, whose own error is then the answer.

type InputSchema = ToolDefinition['inputSchema'];

export const PUBLIC_TOOL_NAME = 'inspect_code_graph';

const ROUTING_NOTE = 'Gateway routing: pass the absolute project root in cwd (under an allowed project root).';

const CWD_PROPERTY = {
  type: 'string',
  description: 'Absolute project root. Must be under an allowed project root (HERMES_MCP_ROOTS); the gateway keeps one resident graph session per project root.',
};

const REQUEST_TYPES = ['entrypoints', 'lookup', 'trace', 'details', 'overview', 'tour', 'escape'];

/** The stand-in catalogued when the upstream's own schema is not available at startup. */
export function builtinDefinition(): { description: string; inputSchema: InputSchema } {
  return {
    description: `${ROUTING_NOTE} Inspect a project's code graph: symbols, definitions, call paths, type relationships, dependencies and architecture, from the graph upstream (Samchon Graph). The upstream's own schema was not available when the gateway started (see /readyz graph); the request follows its usual shape.`,
    inputSchema: {
      type: 'object',
      properties: {
        cwd: CWD_PROPERTY,
        question: { type: 'string', description: "The user's code question, restated." },
        draft: { type: ['string', 'object'], description: 'Initial plan: the smallest request type that seems to answer it, and why.' },
        review: { type: 'string', description: 'Final self-review of the draft before calling.' },
        request: {
          type: 'object',
          description: `The graph operation: {type: ${REQUEST_TYPES.join(' | ')}, ...its fields} (lookup {query}, trace {from, to?, direction?}, details {handles}, overview {aspect?}, tour, escape {reason}).`,
          properties: { type: { type: 'string' } },
          required: ['type'],
        },
      },
      required: ['cwd'],
    },
  };
}

/**
 * The upstream tool's schema with `cwd` added first (property and `required`), or why it cannot
 * be served. `$schema` is dropped: the catalog validates every tool as JSON Schema 2020-12, the
 * dialect MCP tool schemas default to.
 */
export function publicDefinition(upstream: GraphToolDefinition): { description: string; inputSchema: InputSchema } | { unusable: string } {
  const { $schema: _dialect, ...schema } = upstream.inputSchema;
  if (schema.type !== undefined && schema.type !== 'object') return { unusable: `the upstream's input schema is not an object schema (type ${JSON.stringify(schema.type)})` };
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  if ('cwd' in properties) return { unusable: 'the upstream tool has a cwd argument of its own, which the gateway routing argument would shadow' };
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  return {
    description: upstream.description ? `${ROUTING_NOTE}\n\n${upstream.description}` : ROUTING_NOTE,
    inputSchema: { ...schema, type: 'object', properties: { cwd: CWD_PROPERTY, ...properties }, required: ['cwd', ...required] },
  };
}

