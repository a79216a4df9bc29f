import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { makeHermesHome, viaBridge } from './gateway.js';
import { makeHermesHome as writeHermesConfig } from './hermes.js';

// Helpers for the browser tool tests: a Hermes home with a browser section in config.yaml, a
// browser tool call through tool_call with a session token, and a recording fake Camofox for the
// cases where what matters is which requests reach Camofox (or that none does).

/** A throwaway Hermes home whose config.yaml Hermes' config module wrote with `config` (e.g. a `browser` section). */
export function homeWithConfig(config: Record<string, unknown>): string {
  return writeHermesConfig(makeHermesHome(), { config });
}

/** The config.yaml setting the stand-in tests use: the fixture pages live on 127.0.0.1, a private address. */
export const ALLOW_LOOPBACK_PAGES = { browser: { allow_private_urls: true } };

/** A browser tool through tool_call for the capability `token`: its structured result, error flag and text. */
export async function browse(client: Client, token: string, name: string, args: Record<string, unknown> = {}) {
  const { data, isError, result } = await viaBridge(client, name, args, token);
  return { data, isError, text: result.content.map((c) => c.text ?? '').join('\n') };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeCamofox {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The happy path of the routes browser_navigate uses (the fake's default reply). */
export function happyCamofoxReply(r: RecordedRequest): { status: number; body: unknown } {
  if (r.path === '/health') return { status: 200, body: { ok: true, browserRunning: true, activeTabs: 0 } };
  if (r.method === 'POST' && r.path === '/tabs') return { status: 200, body: { tabId: 'tab-1', url: (r.body as { url?: string }).url } };
  if (r.path.startsWith('/tabs/tab-1/snapshot')) return { status: 200, body: { url: 'http://x/', snapshot: '- button "Go" [e1]', refsCount: 1 } };
  return { status: 404, body: { error: 'Not found' } };
}

/**
 * A fake Camofox that records every request and answers `reply` (default: the happy path of the
 * routes browser_navigate uses). `hang: true` accepts requests and never answers them; a `reply`
 * of `'hang'` does that for one request, `'drop'` closes its socket without an answer; `delay`
 * answers a request after that many milliseconds, or never ('hang').
 */
export async function startFakeCamofox(
  options: {
    hang?: boolean;
    delay?: (r: RecordedRequest) => number | 'hang';
    reply?: (r: RecordedRequest) => { status: number; body: unknown } | 'hang' | 'drop';
  } = {},
): Promise<FakeCamofox> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const record: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as unknown) : undefined };
      requests.push(record);
      const delay = options.hang ? 'hang' : (options.delay?.(record) ?? 0);
      if (delay === 'hang') {
        open.add(res);
        return;
      }
      const respond = () => {
        const answer = (options.reply ?? happyCamofoxReply)(record);
        if (answer === 'hang') return void open.add(res);
        if (answer === 'drop') return void req.socket.destroy();
        const { status, body } = answer;
        // A Buffer body is an image (a screenshot); anything else is JSON.
        if (Buffer.isBuffer(body)) res.writeHead(status, { 'content-type': 'image/png' }).end(body);
        else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (delay === 0) return respond();
      open.add(res);
      setTimeout(() => {
        open.delete(res);
        if (!res.destroyed) respond();
      }, delay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
