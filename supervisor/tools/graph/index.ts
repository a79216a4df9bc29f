import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ProbeResult } from '../../platform/health/readiness.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { builtinDefinition } from './schema.js';
import { resolveStartup, type GraphStartup } from './startup.js';
import { graphTool } from './tool.js';
import { GraphWorker, WORKER_SLACK_MS } from './worker.js';
import { createRootsAdvice } from '../../platform/health/advice.js';

// The graph adapter: Samchon Graph (or any upstream with the same one-tool contract) as the one
// deferred tool `inspect_code_graph`. The upstream's stdio MCP sessions live in the graph worker, a
// child process like every other worker, never in the supervisor. The tool's schema is learned at
// startup (startup.ts) and frozen with the catalog.
//
// /readyz `graph`: ready when the schema root's session answered with the exact surface and still
// answers a ping. While a call is active on that session the probe does not wait for it and
// reports the last known state; a probe that gets no answer in PROBE_BOUND_MS is an error, so
// /readyz never hangs on the graph. `not_installed` when the upstream command is missing.

/** Below Readiness' own 5 s probe timeout, so the reason is this adapter's, not a generic timeout. */
const PROBE_BOUND_MS = 3000;
/** What the worker's probe may take (session open included); the rest of PROBE_BOUND_MS is transport. */
const PING_TIMEOUT_MS = 2000;

export interface GraphAdapter extends Adapter {
  worker: GraphWorker;
}

export function graphAdapter(config: GatewayConfig, runtime: WorkerRuntime, log: Logger): GraphAdapter {
  const { limits } = config;
  const upstreamPath = config.graphEnvironment.PATH ?? runtime.childEnv.PATH ?? '';
  let startup: GraphStartup | undefined;
  const worker = new GraphWorker(
    runtime,
    { command: [...config.graphCommand], tool: config.graphTool, maxSessions: limits.graphMaxSessions, callTimeoutMs: limits.graphCallTimeoutSeconds * 1000, openTimeoutMs: limits.graphStartupTimeoutSeconds * 1000 },
    { ...config.graphEnvironment },
    log,
  );
  // A call may open a session, then wait its turn and run: the worker answers within these budgets.
  const callBoundMs = (limits.graphStartupTimeoutSeconds + limits.graphCallTimeoutSeconds) * 1000 + WORKER_SLACK_MS;
  let lastProbe: ProbeResult | undefined;
  let probing: Promise<ProbeResult> | undefined;

  async function probeSchemaSession(schemaRoot: string): Promise<ProbeResult> {
    const reply = await worker.request({ type: 'probe', cwd: schemaRoot, timeoutMs: PING_TIMEOUT_MS }, PROBE_BOUND_MS, 'spare-busy');
    // Not the command line: an operator may have put a credential in its arguments.
    const details = { upstream_tool: config.graphTool, schema_root: schemaRoot };
    if (!('state' in reply) || reply.state === 'failed') {
      return { ready: false, status: 'error', reason: reply.failure?.message ?? 'the graph probe failed', action: 'see the reason; the graph upstream is restarted on the next call or probe', details };
    }
    // Busy: the last known state, which before any probe is startup's (the exact surface answered).
    if (reply.state === 'busy') return { ...(lastProbe ?? { ready: true, status: 'ok' }), details: { ...details, busy: true } };
    return { ready: true, status: 'ok', details };
  }

  return {
    name: 'graph',
    worker,
    source: {
      name: 'graph',
      tools: async () => {
        startup = await resolveStartup(config, worker, upstreamPath).catch((e: unknown): GraphStartup => ({
          kind: 'fallback',
          code: 'GRAPH_UPSTREAM_FAILED',
          reason: `graph startup failed: ${(e as Error).message}`,
          definition: builtinDefinition(),
        }));
        if (startup.kind === 'upstream') log.info({ event: 'graph_ready', upstream_tool: config.graphTool, schema_root: startup.schemaRoot }, 'graph upstream schema loaded');
        // Declared optional, a missing upstream is expected here: information, not a warning.
        else log[config.optionalComponents.has('graph') ? 'info' : 'warn']({ event: 'graph_unavailable', code: startup.code, reason: startup.reason }, 'graph upstream unavailable at startup; inspect_code_graph uses the built-in schema');
        return [graphTool(startup.definition, { worker, roots: config.roots, boundMs: callBoundMs })];
      },
    },
    readiness: [
      {
        name: 'graph',
        probe: async (): Promise<ProbeResult> => {
          if (!startup) return { ready: false, status: 'starting', reason: 'the graph adapter has not finished starting' };
          if (startup.kind === 'fallback') return fallbackProbe(startup, config.roots);
          // One probe at a time: /readyz polled in a burst shares it.
          probing ??= probeSchemaSession(startup.schemaRoot).finally(() => (probing = undefined));
          lastProbe = await probing;
          return lastProbe;
        },
      },
    ],
    health: () => ({ graph_worker: worker.pid !== undefined }),
    close: () => worker.close(),
  };
}

function fallbackProbe(startup: Extract<GraphStartup, { kind: 'fallback' }>, roots: readonly string[]): ProbeResult {
  const optional = 'or set HERMES_MCP_OPTIONAL_COMPONENTS=graph to run without the code graph';
  if (startup.code === 'GRAPH_NO_ROOT') {
    return { ready: false, status: 'error', reason: `${startup.code}: ${startup.reason}`, action: `${createRootsAdvice(roots)}, then restart the gateway (the catalog's schema is fixed at startup); ${optional}` };
  }
  if (startup.code === 'GRAPH_NOT_INSTALLED') {
    return { ready: false, status: 'not_installed', reason: startup.reason, action: `install Samchon Graph (samchon-graph) or point HERMES_MCP_GRAPH_COMMAND at the upstream, then restart the gateway; ${optional}` };
  }
  return { ready: false, status: 'error', reason: `${startup.code}: ${startup.reason}`, action: `fix the graph upstream named in the reason and restart the gateway (the catalog's schema is fixed at startup); ${optional}` };
}
