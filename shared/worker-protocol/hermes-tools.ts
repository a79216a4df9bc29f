import { defineProtocol, type ReadyMessage } from './protocol.js';

// The Hermes tools worker (workers/hermes-tools-worker.ts): one long-lived child of the gateway
// that hosts Hermes' own stdio MCP tool server (`python -m agent.transports.hermes_tools_mcp_server`)
// and keeps it running: restarted with backoff after it exits. 'configure' comes once, right after
// 'ready'; then every request gets exactly one reply with its id, in any order (the worker takes
// them concurrently; the tool server gets them one at a time). A request the worker cannot serve is answered with a `failure`
// carrying one of the HERMES_TOOLS_* codes (shared/errors.ts), never left hanging.

export type HermesToolsFailureCode = 'HERMES_TOOLS_NOT_INSTALLED' | 'HERMES_TOOLS_UNAVAILABLE' | 'HERMES_TOOLS_TIMEOUT' | 'HERMES_TOOLS_FAILED';
export type HermesToolsFailure = { code: HermesToolsFailureCode; message: string };

/** A tool as the tool server's tools/list describes it. */
export type HermesToolDefinition = { name: string; description: string; inputSchema: Record<string, unknown> };

/** The tool server's MCP serverInfo (FastMCP puts its server name and the `mcp` package's version there). */
export type HermesToolServerInfo = { name: string; version?: string };

/** The tool server's CallToolResult, passed through (the supervisor redacts and caps it). */
export type HermesToolResult = { content: Array<{ type: string } & Record<string, unknown>>; structuredContent?: unknown; isError?: boolean };

export type HermesToolsSettings = {
  /** The tool server's argv, spawned without a shell. */
  command: string[];
  /** Its working directory (the Hermes source tree, so `-m agent...` resolves). */
  cwd: string;
  /** Spawn, MCP handshake and tools/list together (hermesToolsStartupTimeoutSeconds). */
  openTimeoutMs: number;
  /** The first restart delay after an exit; it doubles per consecutive failure up to `restartMaxMs`. */
  restartMinMs: number;
  restartMaxMs: number;
  /** How long the tool server may take to answer a ping after a call it could not stop, or for a probe, before it is killed as stuck (hermesToolsStuckPingMs). */
  stuckPingMs: number;
};

/** The tool server as the worker sees it, for /readyz. */
export type HermesToolsStatus = {
  /** starting: the first open is under way; up: a session serves; restarting: waiting out the backoff (or reopening). */
  state: 'starting' | 'up' | 'restarting';
  /** Restarts since the worker started (the first open is not one). */
  restarts: number;
  /** Consecutive failures (exits, failed opens) since a call last succeeded. */
  failures: number;
  lastFailure?: string;
  /** Milliseconds until the next restart attempt, while waiting out the backoff. */
  nextAttemptInMs?: number;
  /** With state up and idle: whether it answered an MCP ping within the probe's timeout. */
  answersPing?: boolean;
  /** With state up: the call it is running now (not pinged: it answers nothing until the call ends), and for how long. */
  busy?: { tool: string; forMs: number };
};

export type HermesToolsProtocol = {
  toWorker:
    | ({ type: 'configure' } & HermesToolsSettings)
    /** The tool server's tools/list of its first session (opened if need be, retried after a failed start), within `withinMs`, with that session's serverInfo. */
    | { type: 'tools'; id: string; withinMs: number }
    /** `timeoutMs`: the call's budget, waiting for a (re)start included; `budgetName` names its limit in messages; `callId` names it for 'cancel'. */
    | { type: 'call'; id: string; callId: string; name: string; arguments: Record<string, unknown>; timeoutMs: number; budgetName: string }
    /** The call's client went away: cancel it on the tool server (MCP notifications/cancelled). No reply; the supervisor has answered already. */
    | { type: 'cancel'; callId: string }
    | { type: 'status'; id: string; pingTimeoutMs: number };
  fromWorker:
    | ReadyMessage
    | { type: 'tools-result'; id: string; tools?: HermesToolDefinition[]; server?: HermesToolServerInfo; failure?: HermesToolsFailure }
    | { type: 'call-result'; id: string; result?: HermesToolResult; failure?: HermesToolsFailure }
    | { type: 'status-result'; id: string; status: HermesToolsStatus };
  replies: {
    tools: { type: 'tools-result'; id: string; tools?: HermesToolDefinition[]; server?: HermesToolServerInfo; failure?: HermesToolsFailure };
    call: { type: 'call-result'; id: string; result?: HermesToolResult; failure?: HermesToolsFailure };
    status: { type: 'status-result'; id: string; status: HermesToolsStatus };
  };
};

export const hermesToolsProtocol = defineProtocol<HermesToolsProtocol>('Hermes tools worker', {
  toWorker: { configure: true, tools: true, call: true, status: true, cancel: true },
  fromWorker: { ready: true, 'tools-result': true, 'call-result': true, 'status-result': true },
  replies: { tools: 'tools-result', call: 'call-result', status: 'status-result' },
});
