// The HTTP floor for bench/http.ts: a bare Hono JSON POST handler on @hono/node-server, the same
// stack the gateway serves on, doing nothing but parse and answer JSON-RPC.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';

const app = new Hono();
app.post('/mcp', async (c) => {
  const body = (await c.req.json()) as { id?: unknown };
  return c.json({ jsonrpc: '2.0', id: body.id ?? null, result: { ok: true } });
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
