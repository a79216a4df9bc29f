import fc from 'fast-check';
import { LEGACY, MODERN, modernParams } from './rpc.js';

// Arbitraries for hostile MCP traffic of both eras: what goes in the body and in the headers.

/** A header value fetch will send (visible ASCII), including the empty string. */
export const headerValue = fc.string({ maxLength: 80, unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) });

const KNOWN_METHODS = [
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get',
  'completion/complete', 'logging/setLevel', 'server/discover', 'notifications/initialized', 'notifications/cancelled',
  'notifications/progress', 'subscriptions/listen',
];
const TOOL_NAMES = ['tool_search', 'tool_describe', 'tool_call', 'startup_context', 'memory_context', 'skills_list', 'read_file', 'terminal', 'browser_cdp', 'computer_use', 'nope'];

export const method = fc.oneof(fc.constantFrom(...KNOWN_METHODS), fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 1 }));
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.jsonValue({ maxDepth: 1 }));

/** Params for tools/call-like requests: a real or fake tool name, arguments of any shape. */
const callParams = fc.record(
  { name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string({ maxLength: 30 })), arguments: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.object({ maxDepth: 2 })) },
  { requiredKeys: [] },
);

/** The params a request carries: modern envelope or not, a wrong envelope version, or junk. */
const params = fc.oneof(
  callParams.map((p) => modernParams(p)),
  callParams,
  fc.tuple(callParams, fc.oneof(headerValue, fc.jsonValue({ maxDepth: 1 }))).map(([p, v]) => ({ ...p, _meta: { 'io.modelcontextprotocol/protocolVersion': v } })),
  fc.record({ protocolVersion: fc.oneof(fc.constantFrom(MODERN, LEGACY, '2024-11-05', '1999-01-01'), headerValue), capabilities: fc.jsonValue({ maxDepth: 1 }), clientInfo: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 2 }),
);

export const rpc = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.jsonValue({ maxDepth: 0 })), id, method, params }, { requiredKeys: ['jsonrpc', 'method'] });

/** A JSON text nested `depth` deep (built as text: JSON.stringify itself recurses), to find unbounded recursion. */
function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + '"leaf"' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '"leaf"' + '}'.repeat(depth);
}

/** A request body: broken JSON, random JSON, JSON-RPC shaped, huge, deeply nested, or a batch. */
export const body = fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 2, arbitrary: rpc.map((r) => JSON.stringify(r)).chain((s) => fc.nat({ max: Math.max(0, s.length - 1) }).map((n) => s.slice(0, n))) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 6, arbitrary: rpc.map((r) => JSON.stringify(r)) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 1_000, max: 1_500_000 }), fc.constantFrom('tool_search', 'tool_call', 'read_file'), fc.boolean()).map(([n, name, modern]) => {
      const big = 'x'.repeat(n);
      const args = name === 'tool_search' ? { queries: [big] } : name === 'tool_call' ? { calls: [{ name: big, arguments: { path: big } }] } : { path: big };
      const p = { name, arguments: args };
      return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: modern ? modernParams(p) : p });
    }),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>, fc.constantFrom('tool_call', 'tool_search', 'skills_list')).map(([depth, kind, name]) => {
      const deep = nested(depth, kind);
      const args = name === 'tool_call' ? `{"calls":[{"name":"read_file","arguments":{"path":${deep}}}]}` : `{"queries":[${deep}]}`;
      const envelope = JSON.stringify(modernParams({ name }));
      return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${envelope.slice(0, -1)},"arguments":${args}}}`;
    }),
  },
  { weight: 2, arbitrary: fc.array(rpc, { maxLength: 30 }).map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping', params: modernParams() })))) },
);

/** Headers that may contradict the body: mcp-method/mcp-name/protocol version/session id/media types. */
export function headers(sessionId: string) {
  return fc.record(
    {
      'mcp-protocol-version': fc.oneof(fc.constantFrom(MODERN, LEGACY, '2025-03-26', '2024-11-05', '2025-11-25'), headerValue),
      'mcp-method': fc.oneof(fc.constantFrom(...KNOWN_METHODS), headerValue),
      'mcp-name': fc.oneof(fc.constantFrom(...TOOL_NAMES), headerValue),
      'mcp-session-id': fc.oneof(fc.constant(sessionId), headerValue, fc.uuid(), fc.constant('x'.repeat(4096)), fc.constant(sessionId + ' ')),
      'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded'),
      accept: fc.constantFrom('application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', 'text/html'),
    },
    { requiredKeys: ['content-type', 'accept'] },
  );
}
