import dns from 'node:dns';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';

// A child process that is "ChatGPT" for the public-URL test: the MCP SDK client's own OAuth support
// (discovery from the 401, Dynamic Client Registration, PKCE, token, refresh) against a gateway
// behind nginx with a self-signed certificate. It runs as its own process because Node's fetch
// trusts an extra CA only through NODE_EXTRA_CA_CERTS, read at process start; the test passes the
// proxy's certificate there. The proxy's public name is resolved to 127.0.0.1 here (no DNS). The
// browser part (following the authorization redirect, the consent page, Continue) is plain fetch
// with a cookie jar; the operator's approval is the test's: the driver prints the approval code
// (one JSON line on stdout) and waits for a line on stdin. Before the refresh step it asks the test
// the same way to expire the access token (the test moves the gateway's clock on).
//
//   DRIVER_MCP_URL   https://<name>:<port>/mcp
//   DRIVER_NAME      <name>

type Tokens = Parameters<OAuthClientProvider['saveTokens']>[0];
type ClientInfo = Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0];
type DiscoveryState = Parameters<NonNullable<OAuthClientProvider['saveDiscoveryState']>>[0];

const mcpUrl = new URL(process.env.DRIVER_MCP_URL!);
const name = process.env.DRIVER_NAME!;
const REDIRECT = 'http://127.0.0.1:9/callback';

const lookup = dns.lookup;
(dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback: unknown) => lookup(host === name ? '127.0.0.1' : host, options as dns.LookupOptions, callback as never);

function emit(event: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(event) + '\n');
}

const stdinLines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

class MemoryProvider implements OAuthClientProvider {
  info?: ClientInfo;
  saved: Tokens[] = [];
  verifier = '';
  authUrl?: URL;
  discovery?: DiscoveryState;
  saveDiscoveryState(state: DiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'Driver (ChatGPT stand-in)', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: ClientInfo) {
    this.info = info;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: Tokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const jar = new Map<string, string>();
async function browse(url: URL, init: RequestInit = {}): Promise<Response> {
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const eq = pair!.indexOf('=');
    jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
  }
  return res;
}

/** The browser: authorization URL → consent page → (operator approves) → Continue → redirect_uri?code=…&iss=… (its query). */
async function authorizeInBrowser(authUrl: URL): Promise<URLSearchParams> {
  let res = await browse(authUrl);
  let url = new URL(res.headers.get('location')!, authUrl);
  res = await browse(url);
  const html = await res.text();
  const code = /id="approval-code">([^<]+)</.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!code || !csrf) throw new Error(`no approval code on the consent page (${res.status}): ${html.slice(0, 300)}`);
  emit({ event: 'approval_code', code, page_shows: { client: html.includes('Driver (ChatGPT stand-in)'), redirect: html.includes(REDIRECT), scope: /hermes:(read|full)/.test(html) } });
  await stdinLines.next();
  res = await browse(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, action: 'continue' }).toString() });
  for (let hop = 0; hop < 5; hop++) {
    const location = res.headers.get('location');
    if (!location) {
      const page = await res.text();
      throw new Error(`authorization stopped at ${res.status}: ${/class="notice">([^<]*)/.exec(page)?.[1] ?? page.slice(0, 300)}`);
    }
    url = new URL(location, url);
    if (url.href.startsWith(REDIRECT)) {
      if (!url.searchParams.get('code')) throw new Error(`redirected without a code: ${url.search}`);
      return url.searchParams;
    }
    res = await browse(url);
  }
  throw new Error('too many redirects');
}

function text(result: unknown): string {
  return JSON.stringify((result as { structuredContent?: unknown; content?: unknown }).structuredContent ?? (result as { content?: unknown }).content);
}

async function main(): Promise<void> {
  const provider = new MemoryProvider();
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  try {
    await new Client({ name: 'driver-legacy', version: '1.0.0' }).connect(first);
    throw new Error('the gateway let an unauthenticated client in');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  emit({ event: 'registered', client_id: provider.info?.client_id });
  await first.finishAuth(await authorizeInBrowser(provider.authUrl!));

  const legacy = new Client({ name: 'driver-legacy', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const legacyResult = await legacy.callTool({ name: 'tool_search', arguments: { queries: ['read a file'] } });
  const modern = new Client({ name: 'driver-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const modernResult = await modern.callTool({ name: 'tool_search', arguments: { queries: ['read a file'] } });

  // Refresh: once the access token has expired, the next call gets a 401 and the SDK refreshes.
  const before = provider.tokens()!;
  emit({ event: 'expire_access_token' });
  await stdinLines.next();
  const afterExpiry = await modern.callTool({ name: 'tool_search', arguments: { queries: ['terminal'] } });
  const after = provider.tokens()!;
  // The rotated-away refresh token must not work again.
  const reuse = await fetch(new URL('/oauth/token', mcpUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.refresh_token ?? '', client_id: provider.info!.client_id }).toString(),
  });
  emit({
    event: 'done',
    legacy: text(legacyResult),
    modern: text(modernResult),
    after_expiry: text(afterExpiry),
    token_saves: provider.saved.length,
    access_token_changed: before.access_token !== after.access_token,
    refresh_token_rotated: Boolean(before.refresh_token && after.refresh_token && before.refresh_token !== after.refresh_token),
    old_refresh_reuse: { status: reuse.status, body: await reuse.json() },
    access_token: after.access_token,
  });
  await legacy.close();
  await modern.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    emit({ event: 'error', message: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) });
    process.exit(1);
  },
);
