import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildOAuthProtectedResourceMetadata, type AuthInfo } from '@modelcontextprotocol/server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { ConfigError, type GatewayConfig } from '../../platform/config.js';
import { AuditLog } from '../edge/audit.js';
import { readCappedBody } from '../edge/body-limit.js';
import { clientIp } from '../edge/client-ip.js';
import { TokenBuckets } from '../edge/rate-limit.js';
import { operatorCommand } from '../../platform/operator-command.js';
import { openAuthDatabase, type AuthDatabase } from './auth-db.js';
import { createAuthorizationServer, handOff, OAUTH_ROUTES, type Provider } from './authorization-server.js';
import { ConsentPages, passphraseFileProblem } from './consent.js';
import { CONSENT_PREFIX, mcpGate, originGuard, verdictOf } from './middleware.js';
import { sweepExpired } from './oauth-store.js';
import { PassphraseLimit } from './passphrase-limit.js';
import { PublicOrigin } from '../../platform/settings/public-origin.js';
import { SCOPES } from '../../core/scopes.js';
import { StaticTokenVerifier } from './static-tokens.js';
import { parseJsonObject } from '../../platform/json-object.js';

// Composition of the authentication edge, built only when it is on (a public URL is configured, or
// HERMES_MCP_AUTH=on). Without it the gateway keeps its loopback-only Host/Origin check and
// serves /mcp unauthenticated.

export interface AuthEdge {
  originGuard: MiddlewareHandler;
  /** Wraps the /mcp handler: credential, rate limit, audit. */
  mcp(c: Context, serve: (authInfo: AuthInfo) => Promise<Response>): Promise<Response>;
  /** Registers the OAuth routes (call after originGuard is in place, before other routes). */
  mount(app: Hono): void;
  /** True for the operator on this machine (loopback Host, nothing forwarded): may see /readyz details and metrics. */
  isLocal(request: Request): boolean;
  close(): void;
}

interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

const SWEEP_MS = 60_000;

/**
 * Refuses a configuration whose secrets are not private, before anything starts: the passphrase
 * file (when the consent page uses it) must be the gateway user's own, mode 0600 or stricter.
 */
export function assertAuthFilesSafe(auth: GatewayConfig['auth']): void {
  if (!auth.oauth || !auth.passphraseFile) return;
  const problem = passphraseFileProblem(auth.passphraseFile);
  if (problem) throw new ConfigError(`HERMES_MCP_AUTH_PASSPHRASE_FILE ${auth.passphraseFile} ${problem}: chmod 600 it as the gateway's user (chown if needed), or unset the variable`);
}

export async function createAuthEdge(config: GatewayConfig, log: Logger, now: () => number = Date.now): Promise<AuthEdge | undefined> {
  const { auth, limits } = config;
  if (!auth.required) return undefined;
  assertAuthFilesSafe(auth);
  const origins = new PublicOrigin(auth.publicUrls, auth.allowedOrigins);
  const db: AuthDatabase = openAuthDatabase(auth.database);
  const audit = new AuditLog(auth.auditLog, limits.authAuditMaxBytes, (error) => log.error({ event: 'auth_audit_failed', err: String(error) }));
  const staticTokens = new StaticTokenVerifier(db);
  const resources = auth.publicUrls.map((u) => new URL('/mcp', u).href);
  let provider: Provider | undefined;
  if (auth.oauth) {
    provider = await createAuthorizationServer({ issuer: auth.publicUrls[0]!, resources, db, limits, consentPath: (uid) => `${CONSENT_PREFIX}${uid}`, now });
  }
  const sweeper = setInterval(() => sweepExpired(db, now()), SWEEP_MS);
  sweeper.unref();

  log.info({ event: 'auth_enabled', public_urls: auth.publicUrls.map((u) => u.origin), oauth: auth.oauth, static_tokens: staticTokens.count });
  return {
    // The refusal's reason names only the kind of header at fault, never its value beyond the name.
    originGuard: originGuard(origins, (c, message) =>
      audit.write({ ts: new Date(now()).toISOString(), ip: clientIp(c), method: c.req.method, path: c.req.path, status: 403, duration_ms: 0, grant: 'none', outcome: `forbidden:${refusalKind(message)}` }),
    ),
    mcp: mcpGate({ origins, staticTokens, ...(provider ? { provider } : {}), audit, mcpPerMinute: limits.authRateLimitPerMinute, now }),
    mount(app) {
      if (provider) mountOAuth(app, { provider, db, audit, origins, config, now, log });
    },
    isLocal: (request) => verdictOf(request)?.local === true,
    close() {
      clearInterval(sweeper);
      audit.close();
      db.close();
    },
  };
}

const MAX_REGISTRATION_BYTES = 64 * 1024;

/**
 * Every client is public: PKCE S256 is its proof and no client secret exists to be stored. A
 * registration asking for a secret-based method (client_secret_post/basic) is registered with
 * `none` instead, as RFC 7591 §3.2.1 lets the server decide; the response says so, and a client that
 * follows it needs no secret. Every client is also a `web` client: oidc-provider lets a `native`
 * client's loopback redirect URI match on any port (RFC 8252 §7.3), so any local process listening
 * on another port could receive its codes; a web client's redirect must match exactly.
 * The JSON text, or undefined when it is not a JSON object within bounds.
 */
async function publicClientRegistration(request: Request): Promise<string | undefined> {
  const text = await readCappedBody(request, MAX_REGISTRATION_BYTES);
  if (text === undefined) return undefined;
  const metadata = parseJsonObject(text);
  if (!metadata) return undefined;
  return JSON.stringify({ ...metadata, token_endpoint_auth_method: 'none', application_type: 'web' });
}

function refusalKind(message: string): string {
  return message.startsWith('Forbidden: X-Forwarded') ? 'forwarded_from_remote_peer' : message.startsWith('Invalid Origin') ? 'invalid_origin' : message.startsWith('Invalid X-Forwarded-Host') ? 'invalid_forwarded_host' : 'invalid_host';
}

interface MountOptions {
  provider: Provider;
  db: AuthDatabase;
  audit: AuditLog;
  origins: PublicOrigin;
  config: GatewayConfig;
  now: () => number;
  log: Logger;
}

/** The OAuth surface: protected-resource metadata, the authorization server (oidc-provider) and the consent page. */
function mountOAuth(app: Hono, o: MountOptions): void {
  const { provider, audit, config } = o;
  const limits = config.limits;
  const outcomes = providerOutcomes(provider);
  const consent = consentPages(o);
  const buckets = new TokenBuckets(limits.authOauthRateLimitPerMinute, o.now);
  const metadata = protectedResourceMetadata(o.origins);

  const handler = async (c: Context<{ Bindings: NodeBindings }>) => {
    const started = performance.now();
    const verdict = verdictOf(c.req.raw);
    const ip = clientIp(c);
    const taken = buckets.take(ip);
    if (!taken.ok) {
      audit.write({ ts: new Date(o.now()).toISOString(), ip, method: c.req.method, path: c.req.path, status: 429, duration_ms: 0, grant: 'oauth', outcome: 'rate_limited' });
      return c.json({ error: 'rate_limited', message: `too many requests; retry in ${taken.retryAfterSeconds} s` }, 429, { 'retry-after': String(taken.retryAfterSeconds) });
    }
    const publicUrl = verdict?.publicUrl ?? o.origins.urls[0]!;
    if (c.req.path.startsWith('/.well-known/oauth-protected-resource')) {
      return c.json(metadata.get(publicUrl.host)!, 200, { 'access-control-allow-origin': '*', 'cache-control': 'max-age=300' });
    }
    const { incoming, outgoing } = c.env;
    // oidc-provider builds its URLs from X-Forwarded-Host/Proto (provider.proxy): set them to the
    // public name this request was judged to be for, so a forged or missing header changes nothing.
    incoming.headers['x-forwarded-host'] = publicUrl.host;
    incoming.headers['x-forwarded-proto'] = 'https';
    delete incoming.headers.forwarded;
    // RFC 8414's name for the document oidc-provider serves under the OpenID one.
    if (c.req.path === '/.well-known/oauth-authorization-server') incoming.url = '/.well-known/openid-configuration';
    if (c.req.path.startsWith(CONSENT_PREFIX)) await consent.handle(c.req.path.slice(CONSENT_PREFIX.length), incoming, outgoing, ip);
    else if (c.req.path === OAUTH_ROUTES.registration && c.req.method === 'POST') {
      const body = await publicClientRegistration(c.req.raw);
      if (body === undefined) return c.json({ error: 'invalid_client_metadata', error_description: 'the registration must be a JSON object of at most 64 KiB' }, 400);
      // oidc-provider reads an already-read body from req.body (it warns once that one was parsed upstream).
      (incoming as IncomingMessage & { body?: string }).body = body;
      await handOff(provider, incoming, outgoing);
    } else await handOff(provider, incoming, outgoing);
    const outcome = outcomes.get(incoming);
    audit.write({
      ts: new Date(o.now()).toISOString(),
      ip,
      method: c.req.method,
      path: c.req.path,
      status: outgoing.statusCode,
      duration_ms: Math.round(performance.now() - started),
      grant: 'oauth',
      ...(outcome?.client ? { client: outcome.client } : {}),
      outcome: outcome?.error ?? (outgoing.statusCode < 400 ? 'ok' : `http_${outgoing.statusCode}`),
    });
    return RESPONSE_ALREADY_SENT;
  };
  app.get('/.well-known/oauth-protected-resource', handler);
  app.get('/.well-known/oauth-protected-resource/mcp', handler);
  app.get('/.well-known/oauth-authorization-server', handler);
  app.get('/.well-known/openid-configuration', handler);
  app.all('/oauth/*', handler);
}

/** oidc-provider reports what went wrong on each of its endpoints; the audit line of that request carries it. */
function providerOutcomes(provider: MountOptions['provider']): WeakMap<IncomingMessage, { client?: string; error?: string }> {
  const outcomes = new WeakMap<IncomingMessage, { client?: string; error?: string }>();
  const note = (ctx: { req: IncomingMessage; oidc?: { client?: { clientId: string } } }, error?: { error?: string }) => {
    outcomes.set(ctx.req, { ...(ctx.oidc?.client ? { client: ctx.oidc.client.clientId } : {}), ...(error?.error ? { error: error.error } : {}) });
  };
  // Each of these events is emitted with the Koa context first (and the error second); the typed overloads list them one by one.
  const events = provider as unknown as NodeJS.EventEmitter;
  for (const event of ['authorization.error', 'grant.error', 'registration_create.error', 'revocation.error', 'server_error', 'discovery.error']) {
    events.on(event, (ctx: Parameters<typeof note>[0], error: { error?: string }) => note(ctx, error));
  }
  for (const event of ['grant.success', 'authorization.success', 'registration_create.success', 'revocation.success']) events.on(event, (ctx: Parameters<typeof note>[0]) => note(ctx));
  return outcomes;
}

/** The consent page, its passphrase limit and its audit lines. */
function consentPages(o: MountOptions): ConsentPages {
  const { audit, config } = o;
  const limits = config.limits;
  return new ConsentPages({
    provider: o.provider,
    db: o.db,
    maxTries: limits.authConsentMaxTries,
    ttlSeconds: limits.authConsentTtlSeconds,
    authCommand: operatorCommand('hermes-mcp-auth', config.helperSearchPath),
    ...(config.auth.passphraseFile ? { passphraseFile: config.auth.passphraseFile } : {}),
    passphraseLimit: new PassphraseLimit({ maxFailures: limits.authPassphraseMaxFailures, windowMs: limits.authPassphraseFailureWindowSeconds * 1000, lockoutMs: limits.authPassphraseLockoutSeconds * 1000, now: o.now }),
    now: o.now,
    defaultResource: new URL('/mcp', o.origins.urls[0]).href,
    audit: (facts) => audit.write({ ts: new Date(o.now()).toISOString(), method: 'CONSENT', path: CONSENT_PREFIX, status: 0, duration_ms: 0, grant: 'oauth', ...facts }),
  });
}

/** The protected-resource metadata served for each public name's /mcp. */
function protectedResourceMetadata(origins: PublicOrigin) {
  return new Map(
    origins.urls.map((u) => {
      const resource = new URL('/mcp', u);
      return [
        u.host,
        buildOAuthProtectedResourceMetadata({
          // Only `issuer` is read from it: the authorization server's own metadata is oidc-provider's.
          oauthMetadata: { issuer: origins.urls[0]!.origin, authorization_endpoint: new URL(OAUTH_ROUTES.authorization, origins.urls[0]).href, token_endpoint: new URL(OAUTH_ROUTES.token, origins.urls[0]).href, response_types_supported: ['code'] },
          resourceServerUrl: resource,
          scopesSupported: [...SCOPES],
          resourceName: 'Hermes MCP gateway',
        }),
      ] as const;
    }),
  );

}
