import type { GraphFailureCode, GraphToolDefinition } from '../../../shared/worker-protocol/graph.js';
import { compileArgumentValidator } from '../../core/catalog/catalog.js';
import type { GatewayConfig } from '../../platform/config.js';
import { realRoots } from '../../platform/roots.js';
import { commandExists } from '../../platform/spawning/command-exists.js';
import { builtinDefinition, publicDefinition, PUBLIC_TOOL_NAME } from './schema.js';
import { WORKER_SLACK_MS, type GraphWorker } from './worker.js';

// What the graph adapter learns once, at startup, to freeze into the catalog: the upstream tool's
// schema, asked of a session in the schema root (the first existing allowed root; that session
// stays resident and is the one readiness probes). Every way this can fail leaves the gateway
// running with the built-in schema and the reason, which /readyz reports.

export type GraphStartup =
  | { kind: 'upstream'; schemaRoot: string; definition: ReturnType<typeof builtinDefinition> }
  | { kind: 'fallback'; code: GraphFailureCode | 'GRAPH_NO_ROOT' | 'GRAPH_SCHEMA_UNUSABLE'; reason: string; schemaRoot?: string; definition: ReturnType<typeof builtinDefinition> };

/** The first existing allowed root (real path), where the schema session runs. */
export async function schemaRootOf(roots: readonly string[]): Promise<string | undefined> {
  return (await realRoots(roots))[0];
}

export async function resolveStartup(config: GatewayConfig, worker: GraphWorker, upstreamPath: string): Promise<GraphStartup> {
  const schemaRoot = await schemaRootOf(config.roots);
  const fallback = (code: Extract<GraphStartup, { kind: 'fallback' }>['code'], reason: string): GraphStartup => ({ kind: 'fallback', code, reason, definition: builtinDefinition(), ...(schemaRoot ? { schemaRoot } : {}) });
  if (!schemaRoot) return fallback('GRAPH_NO_ROOT', 'no allowed project root exists (HERMES_MCP_ROOTS), so there is nowhere to start the graph upstream');
  const command = config.graphCommand[0]!;
  if (!commandExists(command, upstreamPath, schemaRoot)) {
    return fallback('GRAPH_NOT_INSTALLED', `the graph upstream command ${JSON.stringify(command)} was not found on PATH (HERMES_MCP_GRAPH_COMMAND)`);
  }
  const { limits } = config;
  const reply = await worker.request({ type: 'schema', cwd: schemaRoot }, limits.graphStartupTimeoutSeconds * 1000 + WORKER_SLACK_MS);
  if (reply.failure) return fallback(reply.failure.code, reply.failure.message);
  const upstream: GraphToolDefinition | undefined = 'tool' in reply ? reply.tool : undefined;
  if (!upstream) return fallback('GRAPH_UPSTREAM_FAILED', 'the graph worker answered without the tool definition');
  const definition = publicDefinition(upstream);
  if ('unusable' in definition) return fallback('GRAPH_SCHEMA_UNUSABLE', definition.unusable);
  try {
    // The catalog compiles every schema when it freezes; one that does not compile would fail startup.
    compileArgumentValidator({ name: PUBLIC_TOOL_NAME, inputSchema: definition.inputSchema });
  } catch (e) {
    return fallback('GRAPH_SCHEMA_UNUSABLE', `the upstream's input schema does not compile as JSON Schema 2020-12: ${(e as Error).message}`);
  }
  return { kind: 'upstream', schemaRoot, definition };
}
