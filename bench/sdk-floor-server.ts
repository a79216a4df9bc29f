// The MCP SDK floor for bench/native.ts and bench/http.ts: the SDK's own modern-era handler
// (createMcpHandler) behind the same Hono server, with one tool whose tools/call returns at once.
// What a tool call costs through the SDK alone, before the gateway does anything. With
// SDK_FLOOR_RESULT_FILE (a JSON object) the call answers that object as the gateway answers a
// result, structured and mirrored as text, so a bench can compare the same answer with and
// without the gateway.
import { serve } from '@hono/node-server';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

const resultFile = process.env.SDK_FLOOR_RESULT_FILE;
const structured = resultFile ? (JSON.parse(readFileSync(resultFile, 'utf8')) as Record<string, unknown>) : {};

const handler = createMcpHandler(
  () => {
    const server = new Server({ name: 'sdk-floor', version: '1' }, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'noop', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }));
    return server;
  },
  { legacy: 'reject' },
);
const app = new Hono();
app.all('/mcp', (c) => handler.fetch(c.req.raw));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
