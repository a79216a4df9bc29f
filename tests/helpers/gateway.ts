import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Limits } from '../../shared/limits.js';
import { environmentSnapshot, loadConfig } from '../../supervisor/platform/config.js';
import type { GatewayOptions } from '../../supervisor/core/gateway.js';
import { startGateway, type RunningGateway } from '../../supervisor/compose/index.js';
import { createLogger } from '../../supervisor/platform/telemetry.js';
import { makeHermesHome } from './base-home.js';
import { assertIsolatedJobDatabase } from './job-isolation.js';
import { logSink } from './log-sink.js';

export { assertIsolatedJobDatabase, liveJobDatabasePaths } from './job-isolation.js';

// A real gateway on an ephemeral loopback port with a throwaway HERMES_HOME, plus real SDK v2
// clients in either protocol era. Every test gets its own; close() removes everything it made.

/**
 * The /readyz components whose upstream a test machine lacks unless a test provides one (Honcho, a
 * trusted root with language servers, a graph upstream, Camofox, Hermes' tool server and its web
 * provider): optional in every test gateway by default.
 */
const UNAVAILABLE_HERE = ['memory', 'lsp', 'graph', 'browser', 'hermes_tools', 'web_provider'];

/** HERMES_MCP_OPTIONAL_COMPONENTS for a test about `required`: every other unavailable component stays optional. */
export function optionalComponents(...required: string[]): string {
  return UNAVAILABLE_HERE.filter((c) => !required.includes(c)).join(',');
}

export interface TestGateway extends RunningGateway {
  home: string;
  mcpUrl: string;
  /** Every log line the gateway wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The raw log text (to assert secrets never reach it). */
  rawLog(): string;
}

/**
 * The port of a gateway process's first `listening` log line on `stderr` (every line also goes to
 * `onLine`); rejects with what it printed when `exited` settles first.
 */
export function listeningPort(stderr: Readable, exited: Promise<unknown>, onLine: (line: string) => void = () => {}): Promise<number> {
  let printed = '';
  return new Promise<number>((resolve, reject) => {
    createInterface({ input: stderr }).on('line', (line) => {
      printed += `${line}\n`;
      onLine(line);
      try {
        const e = JSON.parse(line) as { event?: string; port?: number };
        if (e.event === 'listening' && e.port) resolve(e.port);
      } catch {
        // not a log line
      }
    });
    void exited.then(() => reject(new Error(`the gateway exited before listening:\n${printed}`)));
  });
}

export { makeHermesHome };

export async function startTestGateway(
  options: {
    env?: Record<string, string>;
    limits?: Partial<Limits>;
    home?: string;
    /** The environment the gateway's children inherit instead of this test process's (a real Hermes gets only what it needs). */
    inherited?: Record<string, string>;
  } & Partial<Omit<GatewayOptions, 'config' | 'log'>> = {},
): Promise<TestGateway> {
  const home = options.home ?? makeHermesHome();
  // HOME is the throwaway home too, so Hermes' ~/.hermes and ~/.honcho Honcho fallbacks never find
  // the real account's configuration; a test configures Honcho through honcho.json or HONCHO_* here.
  // The gateway's children inherit this test process's environment as it is now (PATH, ...), as the
  // service's inherit the service's; PATH also finds the helper programs the gateway runs itself.
  const base = loadConfig(
    // No managed scope (HERMES_MANAGED_DIR names a directory that does not exist): a real /etc/hermes must not change what a test sees.
    { PATH: process.env.PATH, HERMES_HOME: home, HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), HERMES_MANAGED_DIR: join(home, 'no-managed-scope'), ...options.env },
    { inheritedEnvironment: options.inherited ?? environmentSnapshot(process.env) },
  );
  const config = { ...base, limits: { ...base.limits, ...options.limits } };
  assertIsolatedJobDatabase(config.jobsDatabase);
  const { stream: sink, lines } = logSink();
  const log = createLogger(config.logLevel, sink);
  const { env: _env, limits: _limits, home: _home, inherited: _inherited, ...rest } = options;
  const running = await startGateway({ ...rest, config, log });
  return {
    ...running,
    home,
    mcpUrl: `${running.url}/mcp`,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    rawLog: () => lines.join('\n'),
    async close() {
      await running.close();
      if (!options.home) rmSync(home, { recursive: true, force: true });
    },
  };
}

export type Era = 'legacy' | 'modern';
export const ERAS: Era[] = ['legacy', 'modern'];

/** What a client that renders MCP Apps declares (the extension with the view's MIME type). */
export const RENDERS_VIEWS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** A connected SDK client of `era`; `views`: it declares that it renders MCP Apps, as a host does. */
export async function connect(mcpUrl: string, era: Era, options: { views?: boolean } = {}): Promise<Client> {
  const client = new Client(
    { name: `test-${era}`, version: '1.0.0' },
    { ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}), ...(options.views ? { capabilities: RENDERS_VIEWS } : {}) },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return client;
}

/** tools/call of a public tool; returns the structuredContent (and the raw result). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: Array<{ type: string; text?: string }>;
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
    _meta?: Record<string, unknown>;
  };
  return { result, data: result.structuredContent ?? {}, isError: result.isError === true };
}

/** A capability session (session_open) on `client`: its token, for tool_call.session_token. */
export async function sessionToken(client: Client): Promise<string> {
  return (await viaBridge(client, 'session_open')).data.session_token as string;
}

/** A fresh client and a capability session on it. */
export async function openSession(mcpUrl: string, era: Era = 'modern', options: { views?: boolean } = {}): Promise<{ client: Client; token: string }> {
  const client = await connect(mcpUrl, era, options);
  return { client, token: await sessionToken(client) };
}

/** tool_call of a deferred tool through the bridge. */
export function viaBridge(client: Client, name: string, args: Record<string, unknown> = {}, sessionToken?: string) {
  return call(client, 'tool_call', { calls: [{ name, arguments: args }], ...(sessionToken ? { session_token: sessionToken } : {}) });
}

/** A raw JSON-RPC POST (for transport-level cases the SDK client would never send). */
export async function rawPost(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

/** A request through node:http, which (unlike fetch) lets a test forge the Host header. */
export function rawHttp(url: string, options: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A modern-era tool_call sent as raw HTTP so the test can drop the connection mid-call (the SDK
 * client has no way to abandon a request). `done` resolves to 'aborted' once the client gave up.
 */
export function abortableToolCall(mcpUrl: string, name: string, args: Record<string, unknown>, sessionToken?: string) {
  const controller = new AbortController();
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'tool_call',
      arguments: { calls: [{ name, arguments: args }], ...(sessionToken ? { session_token: sessionToken } : {}) },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  const done = fetch(mcpUrl, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tool_call' },
    body,
  }).then(
    () => 'answered' as const,
    () => 'aborted' as const,
  );
  return { abort: () => controller.abort(), done };
}
