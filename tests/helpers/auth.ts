import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { packageRoot } from '../../shared/package-root.js';
import type { Era } from './gateway.js';

// Authentication test helpers: the operator CLI as a real child process, SDK clients with a static
// bearer token, and the OAuth flow played by hand over raw HTTP (forged Host, cookie jar) for the
// bad-input cases the SDK client would never produce.

export const CLI = join(packageRoot(), 'dist', 'bin', 'auth.js');

/** hermes-mcp-auth with the gateway's HERMES_HOME (so the same database and audit log). */
export function authCli(home: string, args: string[], env: Record<string, string> = {}): { status: number; stdout: string; stderr: string; json: Record<string, unknown> } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, HERMES_HOME: home, ...env } });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  } catch {}
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

export function createStaticToken(home: string, name: string, scope: 'read' | 'full' = 'full'): string {
  const r = authCli(home, ['token', 'create', name, '--scope', scope, '--json']);
  if (r.status !== 0) throw new Error(`token create failed: ${r.stderr}`);
  return r.json.token as string;
}

export async function connectWithToken(mcpUrl: string, era: Era, token: string): Promise<Client> {
  const client = new Client({ name: `test-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** The audit log's lines, parsed. */
export function auditLines(home: string): Array<Record<string, unknown>> {
  try {
    return readFileSync(join(home, 'logs', 'gateway-auth-audit.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http (fetch cannot set Host): `host` is the public name the request claims. */
export function raw(baseUrl: string, path: string, o: { method?: string; host: string; headers?: Record<string, string>; body?: string; cookies?: Map<string, string> }): Promise<RawResponse> {
  const cookie = o.cookies ? [...o.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method: o.method ?? 'GET', headers: { host: o.host, ...(cookie ? { cookie } : {}), ...o.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        for (const c of res.headers['set-cookie'] ?? []) {
          const [pair] = c.split(';');
          const eq = pair!.indexOf('=');
          o.cookies?.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A client driving the gateway's OAuth endpoints by hand, as `host` (a configured public name). */
export class HandClient {
  readonly cookies = new Map<string, string>();
  clientId = '';

  constructor(
    readonly baseUrl: string,
    readonly host: string,
    readonly redirectUri = 'https://client.example/callback',
  ) {}

  get resource(): string {
    return `https://${this.host}/mcp`;
  }

  request(path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
    return raw(this.baseUrl, path, { ...o, host: this.host, cookies: this.cookies });
  }

  form(path: string, fields: Record<string, string>): Promise<RawResponse> {
    return this.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  }

  async register(redirectUris = [this.redirectUri]): Promise<RawResponse> {
    const res = await this.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Hand client', redirect_uris: redirectUris, token_endpoint_auth_method: 'none' }) });
    if (res.status === 201) this.clientId = (JSON.parse(res.body) as { client_id: string }).client_id;
    return res;
  }

  /** GET /oauth/authorize with these parameters (PKCE S256 and this resource unless overridden). */
  authorize(params: Record<string, string | undefined>): Promise<RawResponse> {
    const q = new URLSearchParams();
    const all: Record<string, string | undefined> = { response_type: 'code', client_id: this.clientId, redirect_uri: this.redirectUri, scope: 'hermes:read hermes:full', state: 'st', resource: this.resource, ...params };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) q.set(k, v);
    return this.request(`/oauth/authorize?${q}`);
  }

  /** From a successful authorize redirect: the consent page's uid path, approval code and CSRF token. */
  async consentPage(authorizeResponse: RawResponse): Promise<{ path: string; code: string; csrf: string; html: string }> {
    const path = new URL(String(authorizeResponse.headers.location), `https://${this.host}`).pathname;
    const page = await this.request(path);
    const code = /id="approval-code">([^<]+)</.exec(page.body)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    if (!code || !csrf) throw new Error(`no consent form (${page.status}): ${page.body.slice(0, 300)}`);
    return { path, code, csrf, html: page.body };
  }

  /** Presses Continue and follows the gateway's redirects until the client's redirect_uri; its query. */
  async continueTo(path: string, fields: Record<string, string>): Promise<{ last: RawResponse; query?: URLSearchParams }> {
    let res = await this.form(path, fields);
    for (let hop = 0; hop < 5; hop++) {
      const location = res.headers.location;
      if (typeof location !== 'string') return { last: res };
      const url = new URL(location, `https://${this.host}`);
      if (url.href.startsWith(this.redirectUri)) return { last: res, query: url.searchParams };
      res = await this.request(url.pathname + url.search);
    }
    return { last: res };
  }

  token(fields: Record<string, string>): Promise<RawResponse> {
    return this.form('/oauth/token', { client_id: this.clientId, ...fields });
  }
}
