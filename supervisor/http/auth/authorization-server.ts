import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Configuration, KoaContextWithOIDC, default as ProviderType } from 'oidc-provider';
import type { Limits } from '../../../shared/limits.js';
import type { AuthDatabase } from './auth-db.js';
import { isLoopbackName } from '../../platform/settings/public-origin.js';
import { guardedFetch, type Resolver } from './metadata-fetch.js';
import { SqliteOidcAdapter } from './oauth-store.js';
import { SCOPE_FULL, SCOPE_READ } from '../../core/scopes.js';

// The gateway's own OAuth 2.1 authorization server: oidc-provider (a maintained, certified
// implementation), configured for what the MCP authorization specification asks and nothing more:
// authorization code with PKCE S256 only, public clients (no client secret exists to store),
// Dynamic Client Registration (ChatGPT registers itself), Client ID Metadata Documents, resource
// indicators with audience-bound opaque access tokens, rotating refresh tokens, revocation. The
// interaction (who may approve) is the gateway's consent page (consent.ts). oidc-provider is
// imported only when OAuth is on: it warns about Node 20 at import, and a loopback-only gateway
// never needs it.

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const;


export type Provider = ProviderType;

export interface AuthorizationServerOptions {
  /** The issuer: the first public URL's origin. */
  issuer: URL;
  /** Every resource a token may be minted for: `<public url>/mcp`. */
  resources: readonly string[];
  db: AuthDatabase;
  limits: Limits;
  /** The consent page for an interaction. */
  consentPath: (uid: string) => string;
  /** How metadata-document names are resolved (tests stand in for DNS); the system resolver by default. */
  resolve?: Resolver;
  /** The gateway's clock: when stored codes and tokens expire (the consent and rate limits follow it too). */
  now?: () => number;
}

const LOOPBACK_REDIRECT_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Redirect URIs must be https, or http on a loopback host (a native client's local listener); nothing else. */
export function redirectUriProblem(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (!url) return `${uri} is not a URL`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_REDIRECT_HOSTS.has(url.hostname)) return undefined;
  return `${uri} must be https (or http on a loopback address)`;
}

/**
 * A Client ID Metadata Document is fetched only from a public https name, never from this machine or
 * a private address: the name's text here, the addresses it resolves to when connecting (guardedFetch).
 */
function mayFetchClientMetadata(clientId: string): boolean {
  const url = URL.parse(clientId);
  if (!url || url.protocol !== 'https:') return false;
  const host = url.hostname;
  if (isLoopbackName(host) || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return false;
  // IP literals (private or not) are refused: a client identity is a name.
  return !/^[\d.]+$/.test(host) && !host.startsWith('[');
}

export async function createAuthorizationServer(options: AuthorizationServerOptions): Promise<Provider> {
  const { default: Provider, errors } = await import('oidc-provider');
  const { limits, resources } = options;
  // Keys live only in this process: access tokens are opaque (looked up, never verified by
  // signature) and no ID token is issued, so nothing outlives a restart but a cookie that stops
  // working (an approval in progress is started again).
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const configuration: Configuration = {
    adapter: (name: string) => new SqliteOidcAdapter(options.db, name, options.now),
    clients: [],
    jwks: { keys: [{ ...signingKey, kid: 'ephemeral', alg: 'ES256', use: 'sig' } as never] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    scopes: [SCOPE_READ, SCOPE_FULL, 'offline_access'],
    responseTypes: ['code'],
    fetch: guardedFetch(options.resolve),
    pkce: { required: () => true },
    clientAuthMethods: ['none'],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    // A redirect_uri is always sent and must equal a registered one exactly.
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', allowFetch: async (_ctx: unknown, clientId: string) => mayFetchClientMetadata(clientId) } as never,
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources[0]!,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!resources.includes(resource)) throw new errors.InvalidTarget(`resource must be one of ${resources.join(', ')}`);
          return { scope: `${SCOPE_READ} ${SCOPE_FULL}`, audience: resource, accessTokenTTL: limits.authAccessTokenTtlSeconds, accessTokenFormat: 'opaque' };
        },
      },
    },
    // Checked for every registered client (oidc-provider calls the validator once per listed property).
    extraClientMetadata: {
      properties: ['redirect_uri_policy'],
      validator: (_ctx, _key, _value, metadata) => {
        // Registrations are made `web` before they get here (index.ts); a metadata document may not
        // declare itself native either (its loopback redirects would match on any port).
        if (metadata.application_type === 'native') throw new errors.InvalidClientMetadata('application_type native is not supported; redirect URIs must match exactly');
        for (const uri of (metadata.redirect_uris as string[] | undefined) ?? []) {
          const problem = redirectUriProblem(uri);
          if (problem) throw Object.assign(new errors.InvalidRedirectUri(), { error_description: problem });
        }
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: limits.authAccessTokenTtlSeconds,
      AuthorizationCode: limits.authCodeTtlSeconds,
      RefreshToken: limits.authRefreshTokenTtlSeconds,
      Grant: limits.authRefreshTokenTtlSeconds,
      Interaction: limits.authConsentTtlSeconds,
      Session: limits.authConsentTtlSeconds,
    },
    interactions: { url: (_ctx, interaction) => options.consentPath(interaction.uid) },
    routes: OAUTH_ROUTES,
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Authorization error</title><h1>Authorization error</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`;
    },
  };
  const provider = new Provider(options.issuer.origin, configuration);
  // The gateway hands oidc-provider requests whose X-Forwarded-Host/Proto it has already set to the
  // public name the request was judged to be for (middleware.ts): those, and only those, are used.
  provider.proxy = true;
  return provider;
}

const callbacks = new WeakMap<Provider, ReturnType<Provider['callback']>>();

/**
 * Hands one request to oidc-provider (a Koa app) on the raw Node request and response: the Hono
 * route returns @hono/node-server's RESPONSE_ALREADY_SENT afterwards. Koa needs Node's req/res
 * (it parses bodies, sets cookies and redirects on them itself), so translating through a fetch
 * Response would only copy what Koa already wrote. Resolves once the response is finished.
 */
export function handOff(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let callback = callbacks.get(provider);
  if (!callback) callbacks.set(provider, (callback = provider.callback()));
  const handle = callback;
  return new Promise((resolve) => {
    res.once('close', () => resolve());
    void handle(req, res);
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
