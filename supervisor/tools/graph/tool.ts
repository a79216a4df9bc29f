import { stat } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { GraphCallResult } from '../../../shared/worker-protocol/graph.js';
import { resolveInsideRoots } from '../../platform/roots.js';
import type { ContentBlock, ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { PUBLIC_TOOL_NAME } from './schema.js';
import type { GraphWorker } from './worker.js';

// `inspect_code_graph`: the caller's `cwd` is resolved (realpath) and must be a directory at or
// under an allowed root before anything runs; the rest of the arguments go to the upstream tool
// unchanged, on the resident session for that project root. The upstream's answer is passed
// through as it came: its content blocks and its structuredContent (Samchon Graph answers with
// structuredContent only, @ttsc/graph with a JSON text block); the dispatcher redacts and caps
// both like any result. A failure is one of the GRAPH_* codes with the worker's message.
// A client that disconnects does not cancel the upstream call: it is read-only and ends within the
// call budget, and its session stays usable.

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

export function graphTool(definition: { description: string; inputSchema: ToolDefinition['inputSchema'] }, deps: { worker: GraphWorker; roots: readonly string[]; boundMs: number }): ToolDefinition {
  return {
    name: PUBLIC_TOOL_NAME,
    description: definition.description,
    inputSchema: definition.inputSchema,
    annotations: { ...READ_ONLY, title: 'Code graph' },
    async handler(args) {
      const { cwd, ...upstreamArgs } = args;
      const root = await projectRoot(cwd, deps.roots);
      const reply = await deps.worker.request({ type: 'call', cwd: root, arguments: upstreamArgs }, deps.boundMs);
      if (reply.failure) throw new GatewayError(ErrorCode[reply.failure.code], reply.failure.message, { cwd: root });
      if (!('result' in reply) || !reply.result) throw new GatewayError(ErrorCode.GRAPH_UPSTREAM_FAILED, 'the graph worker answered without a result', { cwd: root });
      return outcomeOf(reply.result);
    },
  };
}

/** The real path of `cwd`, a directory at or under an allowed root. */
async function projectRoot(cwd: unknown, roots: readonly string[]): Promise<string> {
  if (typeof cwd !== 'string' || cwd === '') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'cwd must be the absolute path of the project root');
  const real = await resolveInsideRoots(cwd, roots);
  if (!(await stat(real)).isDirectory()) throw new GatewayError(ErrorCode.INVALID_PATH, `cwd must be a directory (the project root), got a file: ${cwd}`);
  return real;
}

/** The upstream's CallToolResult as a tool outcome; structuredContent that is not an object travels as JSON text. */
function outcomeOf(result: GraphCallResult): ToolOutcome {
  const structured = result.structuredContent;
  const isObject = typeof structured === 'object' && structured !== null && !Array.isArray(structured);
  const content: ContentBlock[] = [...result.content];
  if (structured !== undefined && !isObject) content.push({ type: 'text', text: JSON.stringify(structured) });
  return {
    content,
    ...(isObject ? { structured: structured as Record<string, unknown> } : {}),
    ...(result.isError ? { isError: true } : {}),
  };
}
