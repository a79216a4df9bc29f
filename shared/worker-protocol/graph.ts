import { defineProtocol, type ReadyMessage } from './protocol.js';

// The graph worker (workers/graph-worker.ts): one long-lived child of the gateway that owns the
// graph upstream's stdio MCP sessions, one per project root. 'configure' comes once, right after
// 'ready'; then every request gets exactly one reply with its id, in any order (a call on one root
// never waits behind a call on another). A request the worker cannot serve is answered with a
// `failure` carrying one of the graph error codes, never left hanging: the supervisor maps the code
// to its error catalogue as it is.

/** Why a graph request failed; the codes are shared/errors.ts's GRAPH_* codes. */
export type GraphFailureCode = 'GRAPH_NOT_INSTALLED' | 'GRAPH_SURFACE_MISMATCH' | 'GRAPH_TIMEOUT' | 'GRAPH_UPSTREAM_FAILED' | 'GRAPH_BUSY';
export type GraphFailure = { code: GraphFailureCode; message: string };

/** The upstream tool as its tools/list describes it (what the gateway builds its public schema from). */
export type GraphToolDefinition = { name: string; description: string; inputSchema: Record<string, unknown> };

/** The upstream's CallToolResult, passed through (the supervisor redacts and caps it). */
export type GraphCallResult = { content: Array<{ type: string } & Record<string, unknown>>; structuredContent?: unknown; isError?: boolean };

/** One resident upstream session. */
export type GraphSessionStatus = {
  root: string;
  /** A call is running or queued on it. */
  busy: boolean;
  /** Calls running or queued. */
  calls: number;
  /** Epoch milliseconds of its last use (LRU order). */
  lastUsedAt: number;
};

export type GraphSettings = {
  /** The upstream's argv, spawned without a shell. */
  command: string[];
  /** The one tool the upstream must list. */
  tool: string;
  /** Resident sessions at most (LRU; a busy session is never evicted). */
  maxSessions: number;
  /** One tools/call's budget; past it the session is killed. */
  callTimeoutMs: number;
};

export type GraphProtocol = {
  toWorker:
    /** `openTimeoutMs`: how long a new session may take to spawn, initialize and list its tools. */
    | ({ type: 'configure'; openTimeoutMs: number } & GraphSettings)
    /**
     * The upstream tool's definition, from the session at `cwd` (opened if need be). `cwd` becomes
     * the schema root: its session is the one readiness probes, evicted only when no other idle one is.
     */
    | { type: 'schema'; id: string; cwd: string }
    | { type: 'call'; id: string; cwd: string; arguments: Record<string, unknown> }
    /** Liveness of the session at `cwd`: `busy` (not waited for) when a call is active on it. */
    | { type: 'probe'; id: string; cwd: string; timeoutMs: number }
    | { type: 'status'; id: string };
  fromWorker:
    | ReadyMessage
    | { type: 'schema-result'; id: string; tool?: GraphToolDefinition; failure?: GraphFailure }
    | { type: 'call-result'; id: string; result?: GraphCallResult; failure?: GraphFailure }
    | { type: 'probe-result'; id: string; state: 'ok' | 'busy' | 'failed'; failure?: GraphFailure }
    | { type: 'status-result'; id: string; sessions: GraphSessionStatus[] };
  replies: {
    schema: { type: 'schema-result'; id: string; tool?: GraphToolDefinition; failure?: GraphFailure };
    call: { type: 'call-result'; id: string; result?: GraphCallResult; failure?: GraphFailure };
    probe: { type: 'probe-result'; id: string; state: 'ok' | 'busy' | 'failed'; failure?: GraphFailure };
    status: { type: 'status-result'; id: string; sessions: GraphSessionStatus[] };
  };
};

export const graphProtocol = defineProtocol<GraphProtocol>('graph worker', {
  toWorker: { configure: true, schema: true, call: true, probe: true, status: true },
  fromWorker: { ready: true, 'schema-result': true, 'call-result': true, 'probe-result': true, 'status-result': true },
  replies: { schema: 'schema-result', call: 'call-result', probe: 'probe-result', status: 'status-result' },
});
