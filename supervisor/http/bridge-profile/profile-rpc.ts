import { randomUUID } from 'node:crypto';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { ErrorCode } from '../../../shared/errors.js';
import { errorOutcome } from '../../core/result.js';
import { compileArgumentValidator } from '../../core/catalog/catalog.js';
import { callTool, type CallFrame, type PipelineEntry, type Surface } from '../../core/pipeline.js';
import type { AuditFacts } from '../edge/audit.js';
import type { NormalizedToolResult, ToolDefinition } from '../../core/tool-types.js';

// The drop-in bridge profile's JSON-RPC: stateless MCP over single POSTs, as hermes-mcp-bridge
// serves it. Written here rather than on the SDK server because that bridge's exact behaviour is
// outside what the SDK v2 offers: no session at all (initialize issues no Mcp-Session-Id and no
// later request needs one), batches of at most 20 accepted only for the protocol revisions that
// define batching (2024-11-05, 2025-03-26; the MCP-Protocol-Version header names the revision, and
// its absence means 2025-03-26 as the spec says), and invalid tool arguments as JSON-RPC -32602.
// Tool failures are results with isError and {error: <lower-case code>, message}, like the bridge's.
// A call goes through the gateway's tool pipeline (core/pipeline.ts), normalised inline.

export interface RpcDeps {
  tools: readonly ToolDefinition[];
  serverInfo: { name: string; version: string };
  maxBatch: number;
  maxResultChars: number;
  onInternalError: (tool: string, error: unknown) => void;
  /** Runs one tool call inside the gateway's in-flight accounting (what a drain and close wait for). */
  track<T>(tool: ToolDefinition, ownerId: string, work: () => Promise<T>): Promise<T>;
}

export type RpcAnswer = { status: 200 | 400; body: unknown } | { status: 202 };

const BATCH_VERSIONS = new Set(['2024-11-05', '2025-03-26']);
const LEGACY_VERSIONS = new Set(SUPPORTED_PROTOCOL_VERSIONS);

interface Message {
  jsonrpc: '2.0';
  id?: string | number | null;
  method: string;
  params?: Record<string, unknown>;
}

// What the audit log may record of a client-chosen name: the names this profile knows, else
// "other". A method or tool name is client text; the audit line never carries client text.
const AUDITED_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed']);

export function auditedMethod(method: string): string {
  return AUDITED_METHODS.has(method) ? method : 'other';
}

function error(id: unknown, code: number, message: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

function isMessage(m: unknown): m is Message {
  const o = m as Message | null;
  return (
    !!o && typeof o === 'object' && !Array.isArray(o) && o.jsonrpc === '2.0' && typeof o.method === 'string' &&
    (o.id === undefined || typeof o.id === 'string' || typeof o.id === 'number') &&
    (o.params === undefined || (typeof o.params === 'object' && o.params !== null && !Array.isArray(o.params)))
  );
}

export function createRpcHandler(deps: RpcDeps) {
  const byName = new Map<string, PipelineEntry>(deps.tools.map((t) => [t.name, { tool: t, validate: compileArgumentValidator(t) }]));
  const listed = deps.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }));
  const surface: Surface = {
    onInternalError: deps.onInternalError,
    internalErrorMessage: (tool) => `${tool} failed inside the gateway; see the gateway log`,
    maxChars: deps.maxResultChars,
  };

  async function toolsCall(params: Record<string, unknown>, signal: AbortSignal, facts: AuditFacts): Promise<{ result: NormalizedToolResult } | { rpcError: [number, string] }> {
    const name = params.name;
    const entry = typeof name === 'string' ? byName.get(name) : undefined;
    if (!entry) {
      facts.tool = 'other';
      return { rpcError: [-32602, `unknown tool ${JSON.stringify(name)}; tools/list shows the five tools`] };
    }
    facts.tool = entry.tool.name; // one of the five (byName holds nothing else)
    const refusal: { invalid?: string } = {};
    const { result } = await callTool(entry, params.arguments ?? {}, surface, bridgeFrame(deps, signal, facts, refusal));
    if (refusal.invalid !== undefined) {
      facts.error = 'invalid_params';
      return { rpcError: [-32602, refusal.invalid] };
    }
    return { result };
  }

  async function one(message: unknown, signal: AbortSignal, facts: AuditFacts): Promise<Record<string, unknown> | undefined> {
    if (!isMessage(message)) return error((message as { id?: unknown } | null)?.id, -32600, 'Invalid Request');
    facts.rpc_method ??= auditedMethod(message.method);
    if (message.id === undefined) return undefined; // a notification: nothing to answer
    const params = message.params ?? {};
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: message.id, result });
    switch (message.method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        const protocolVersion = typeof asked === 'string' && LEGACY_VERSIONS.has(asked) ? asked : LATEST_PROTOCOL_VERSION;
        return ok({ protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo: deps.serverInfo });
      }
      case 'ping':
        return ok({});
      case 'tools/list':
        return ok({ tools: listed });
      case 'tools/call': {
        const r = await toolsCall(params, signal, facts);
        return 'rpcError' in r ? error(message.id, r.rpcError[0], r.rpcError[1]) : ok(r.result);
      }
      default:
        facts.error = 'method_not_found';
        return error(message.id, -32601, `Method not found: ${message.method}`);
    }
  }

  /** One POST body (already parsed JSON) to its HTTP answer. */
  return async function handle(body: unknown, protocolVersion: string | null, signal: AbortSignal, facts: AuditFacts): Promise<RpcAnswer> {
    if (!Array.isArray(body)) {
      const answer = await one(body, signal, facts);
      if (!answer) return { status: 202 };
      return { status: isMessage(body) ? 200 : 400, body: answer };
    }
    facts.rpc_method = `batch(${body.length})`;
    if (!BATCH_VERSIONS.has(protocolVersion ?? '2025-03-26')) return { status: 400, body: error(null, -32600, `Invalid Request: protocol ${protocolVersion} has no JSON-RPC batches`) };
    if (body.length === 0 || body.length > deps.maxBatch) return { status: 400, body: error(null, -32600, `Invalid Request: a batch holds 1 to ${deps.maxBatch} messages`) };
    // In order, one at a time: calls in one batch may share a session and must not interleave.
    const answers: Array<Record<string, unknown>> = [];
    for (const message of body) {
      const a = await one(message, signal, facts);
      if (a) answers.push(a);
    }
    return answers.length === 0 ? { status: 202 } : { status: 200, body: answers };
  };
}

/**
 * The frame of one bridge tool call: a fresh request owner, counted by `track`; arguments refused
 * by validation go to `refusal.invalid` (answered as JSON-RPC invalid params), and error codes are
 * spelt the bridge's way.
 */
function bridgeFrame(deps: Pick<RpcDeps, 'track'>, signal: AbortSignal, facts: AuditFacts, refusal: { invalid?: string }): CallFrame {
  const ownerId = `request:${randomUUID()}`;
  return {
    context: () => ({
      owner: { id: ownerId, kind: 'request' },
      signal,
      callId: randomUUID(),
      era: 'legacy',
      callNested: async () => errorOutcome(ErrorCode.UNKNOWN_TOOL, 'the bridge profile runs no nested tool calls'),
    }),
    around: (tool, work) => deps.track(tool, ownerId, work),
    categorise(outcome, stage) {
      if (stage === 'validate') {
        refusal.invalid = String(outcome.structured?.message);
        return;
      }
      if (outcome.isError && outcome.structured && typeof outcome.structured.error === 'string') {
        // The bridge's codes are lower-case (unknown_agent, duplicate_id, ...); the gateway's are their upper-case twins.
        outcome.structured.error = outcome.structured.error.toLowerCase();
        facts.error = outcome.structured.error as string;
      }
    },
  };
}
