import { ErrorCode } from '../../shared/errors.js';

// Raw MCP traffic for the fuzz tests: what a broken or hostile client can put on the wire, which
// the SDK client would never send, and one judgement of every reply the gateway gives back.

export const MODERN = '2026-07-28';
export const LEGACY = '2025-06-18';
const ACCEPT = 'application/json, text/event-stream';

export interface Reply {
  status: number;
  contentType: string;
  text: string;
  /** The JSON-RPC messages in the body (a JSON body or the data lines of an SSE stream). */
  messages: unknown[];
}

export async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  return { status: res.status, contentType, text, messages: parseMessages(contentType, text) };
}

function parseMessages(contentType: string, text: string): unknown[] {
  if (text === '') return [];
  if (contentType.includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter((d) => d !== '')
      .map((d) => JSON.parse(d) as unknown);
  }
  if (contentType.includes('json')) {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return [];
}

/** The 2026-07-28 envelope a sessionless request carries in params._meta. */
export function modernParams(params: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } };
}

/** A sessionless JSON-RPC request with the headers a well-behaved modern client sends. */
export function modernRequest(method: string, params: Record<string, unknown>, id: number | string = 1) {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: modernParams(params) }),
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...name } as Record<string, string>,
  };
}

/** A 2025-era session: initialize, then notifications/initialized; the Mcp-Session-Id to send. */
export async function legacySession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } });
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body });
  await res.text();
  const sid = res.headers.get('mcp-session-id');
  if (!sid) throw new Error(`initialize gave no Mcp-Session-Id (status ${res.status})`);
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY, ...headers });
  return sid;
}

const STABLE_CODES = new Set<string>(Object.values(ErrorCode));

/**
 * Why `reply` is not an acceptable answer to anything a client can send, or undefined when it is:
 * never a 5xx, a JSON or SSE body that parses, every message a well-formed JSON-RPC response, and
 * every tool error carrying a stable code from shared/errors.ts (never INTERNAL_ERROR, which means
 * the gateway itself broke).
 */
export function replyProblem(reply: Reply): string | undefined {
  if (reply.status >= 500) return `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
  if (reply.status >= 400) return undefined;
  for (const m of reply.messages) {
    const problem = messageProblem(m);
    if (problem) return `${problem}: ${JSON.stringify(m).slice(0, 400)}`;
  }
  if (reply.status === 200 && reply.messages.length === 0) return `HTTP 200 without a JSON-RPC message (${reply.contentType}): ${reply.text.slice(0, 200)}`;
  return undefined;
}

function messageProblem(m: unknown): string | undefined {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return 'not a JSON-RPC object';
  const msg = m as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
  if (msg.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if ('error' in msg) {
    if (!Number.isInteger(msg.error?.code) || typeof msg.error?.message !== 'string') return 'malformed JSON-RPC error';
    return undefined;
  }
  if (!('result' in msg)) return 'neither result nor error';
  return toolErrorProblem(msg.result);
}

/** A tools/call result that is an error must name a stable code (structuredContent.error). */
export function toolErrorProblem(result: unknown): string | undefined {
  const r = result as { isError?: unknown; structuredContent?: { error?: unknown } } | null;
  if (r?.isError !== true) return undefined;
  const code = r.structuredContent?.error;
  if (typeof code !== 'string' || !STABLE_CODES.has(code)) return `tool error without a stable code (${String(code)})`;
  if (code === ErrorCode.INTERNAL_ERROR) return 'INTERNAL_ERROR';
  return undefined;
}

/** The tool result inside a single-message reply (undefined when the reply is not one). */
export function toolResult(reply: Reply): { isError?: boolean; structuredContent?: Record<string, unknown> } | undefined {
  const m = reply.messages[0] as { result?: { isError?: boolean; structuredContent?: Record<string, unknown> } } | undefined;
  return m?.result;
}

/** The gateway's RSS in bytes (it runs in this process: tests/helpers/gateway.ts). */
export function rssBytes(): number {
  return process.memoryUsage().rss;
}
