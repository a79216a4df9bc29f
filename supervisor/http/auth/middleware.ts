import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode, verifyBearerToken, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createHash } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { AuditLog, auditFacts } from '../edge/audit.js';
import { clientIp } from '../edge/client-ip.js';
import { TokenBuckets } from '../edge/rate-limit.js';
import { requestRecordOf } from '../../platform/telemetry.js';
import { PublicOrigin, type OriginVerdict } from '../../platform/settings/public-origin.js';
import { principalKey, SCOPES, type Grant } from '../../core/scopes.js';
import type { StaticTokenVerifier } from './static-tokens.js';
import type { Provider } from './authorization-server.js';

// The gateway's authentication edge: which names a request may use (public-origin.ts), which
// credential a /mcp request carries (a named static token or an OAuth access token, verified with
// the MCP server SDK's resource-server helpers), per-client rate limits (failed authentication
// draws from the caller address's bucket), and one audit line per /mcp request.

export interface McpGateOptions {
  origins: PublicOrigin;
  staticTokens: StaticTokenVerifier;
  /** Present when the gateway's own authorization server is on. */
  provider?: Provider;
  audit: AuditLog;
  mcpPerMinute: number;
  now: () => number;
  /** How many legacy session bindings are remembered (default MAX_SESSION_BINDINGS); a forgotten one is refused. */
  maxSessionBindings?: number;
}

/** The consent page's routes (GET/POST /oauth/consent/:uid). */
export const CONSENT_PREFIX = '/oauth/consent/';

type Verdict = Extract<OriginVerdict, { ok: true }>;
const verdicts = new WeakMap<Request, Verdict>();

function peerOf(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** Host / Origin / X-Forwarded-* judgement for every request; refused requests get the SDK's 403 shape and are reported to `onRefused` (the audit log). */
export function originGuard(origins: PublicOrigin, onRefused: (c: Context, message: string) => void = () => {}): MiddlewareHandler {
  return async (c, next) => {
    const h = (name: string) => c.req.header(name) ?? undefined;
    const forwarded = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded'].some((n) => h(n) !== undefined);
    // `Origin: null` (a browser hiding the page's origin) is accepted only on the consent form's POST,
    // which its CSRF token and oidc-provider's interaction cookie already protect; everywhere else a
    // null origin is as foreign as any other.
    const origin = h('origin') === 'null' && c.req.method === 'POST' && c.req.path.startsWith(CONSENT_PREFIX) ? undefined : h('origin');
    const verdict = origins.judge({ host: h('host'), origin, forwardedHost: h('x-forwarded-host'), forwardedProto: h('x-forwarded-proto'), forwarded, peer: peerOf(c) });
    if (!verdict.ok) {
      onRefused(c, verdict.message);
      return c.json({ jsonrpc: '2.0', error: { code: -32000, message: verdict.message }, id: null }, 403);
    }
    verdicts.set(c.req.raw, verdict);
    return next();
  };
}

/** The verdict originGuard reached for this request (undefined when it did not run: no auth edge). */
export function verdictOf(request: Request): Verdict | undefined {
  return verdicts.get(request);
}

/** The RFC 9728 metadata URL for a resource (the path-suffixed form, as the MCP authorization spec has clients try first). */
export function resourceMetadataUrl(resource: URL): string {
  return new URL(`/.well-known/oauth-protected-resource${resource.pathname}`, resource).href;
}

/** An OAuth access token's identity for Grant.credential: a domain-separated sha256, never the token (nor the digest a token store may key it by). */
function accessTokenIdentity(token: string): string {
  return `oauth-token:${createHash('sha256').update('hermes-mcp-gateway credential\0').update(token).digest('hex')}`;
}

function grantInfo(token: string, grant: Grant, expiresAt: number, resource: URL | undefined): AuthInfo {
  return { token, clientId: grant.principal, scopes: [...grant.scopes], expiresAt, ...(resource ? { resource } : {}), extra: { grant } };
}

/** Static tokens first (a constant-time scan in memory), then OAuth access tokens (looked up by hash, bound to their audience). */
function verifier(o: McpGateOptions, resource: URL | undefined): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token) {
      const named = o.staticTokens.verify(token);
      // A static token is the operator's own, valid for every name of this gateway until revoked.
      if (named) return grantInfo(token, { kind: 'static', principal: named.name, scopes: [named.scope], credential: `static:${named.name}` }, Math.floor(o.now() / 1000) + 3600, resource);
      const at = o.provider ? await o.provider.AccessToken.find(token) : undefined;
      // Revoking a client or a token removes its grant; a token whose grant is gone is dead.
      if (!at || at.isExpired || !at.grantId || !(await o.provider!.Grant.find(at.grantId))) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is unknown, expired or revoked');
      const aud = typeof at.aud === 'string' ? at.aud : undefined;
      const scopes = (at.scope ?? '').split(' ').filter(Boolean);
      return grantInfo(token, { kind: 'oauth', principal: at.clientId ?? 'unknown-client', scopes, credential: accessTokenIdentity(token) }, at.exp ?? 0, aud ? new URL(aud) : undefined);
    },
  };
}

/**
 * Legacy sessions remembered per credential; beyond this the oldest binding is forgotten (its session
 * is long idle by then, the gateway holding far fewer sessions), and that session is refused from then on.
 */
const MAX_SESSION_BINDINGS = 10_000;

function sessionNotFound(): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
}

function tooManyRequests(retryAfterSeconds: number): Response {
  return Response.json({ error: 'rate_limited', message: `too many requests; retry in ${retryAfterSeconds} s` }, { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } });
}

/**
 * The /mcp gate: every request must carry a valid credential (whatever its Host: a forwarder that
 * rewrites Host to localhost gets no pass); an OAuth token must have been minted for the public
 * resource this request was addressed to. `serve` runs with the verified AuthInfo.
 */
export function mcpGate(o: McpGateOptions): (c: Context, serve: (authInfo: AuthInfo) => Promise<Response>) => Promise<Response> {
  const clients = new TokenBuckets(o.mcpPerMinute, o.now);
  const failures = new TokenBuckets(o.mcpPerMinute, o.now);
  // A 2025-era session belongs to the credential that opened it: another credential presenting its
  // id (leaked, guessed) is told the session does not exist, as for any unknown id.
  const sessionOwners = new Map<string, string>();
  const maxBindings = o.maxSessionBindings ?? MAX_SESSION_BINDINGS;
  return async (c, serve) => {
    const started = performance.now();
    const verdict = verdictOf(c.req.raw);
    const resource = o.provider && verdict?.publicUrl ? new URL('/mcp', verdict.publicUrl) : undefined;
    const metadataUrl = resource ? resourceMetadataUrl(resource) : undefined;
    const facts = auditFacts(c.req.raw);
    const ip = clientIp(c);
    let response: Response;
    try {
      let authInfo: AuthInfo | undefined;
      try {
        authInfo = await verifyBearerToken(c.req.header('authorization'), { verifier: verifier(o, resource), ...(resource ? { expectedResource: resource } : {}), ...(metadataUrl ? { resourceMetadataUrl: metadataUrl } : {}) });
      } catch (error) {
        facts.grant = 'none';
        facts.outcome = `unauthorized:${error instanceof OAuthError ? error.code : 'server_error'}`;
        const taken = failures.take(ip);
        response = taken.ok ? bearerAuthChallengeResponse(error, { requiredScopes: [...SCOPES], ...(metadataUrl ? { resourceMetadataUrl: metadataUrl } : {}) }) : tooManyRequests(taken.retryAfterSeconds);
        return response;
      }
      const grant = authInfo.extra!.grant as Grant;
      facts.client = grant.principal;
      facts.grant = grant.kind;
      facts.scope = grant.scopes.join(' ');
      const taken = clients.take(`${grant.kind}:${grant.principal}`);
      if (!taken.ok) {
        facts.outcome = 'rate_limited';
        return (response = tooManyRequests(taken.retryAfterSeconds));
      }
      const who = principalKey(grant);
      const sessionId = c.req.header('mcp-session-id');
      if (sessionId !== undefined) {
        // Only a session this gate saw opened, by this credential, is served: an id with no
        // recorded owner (never issued, forgotten, or ended) is refused like a foreign one.
        const owner = sessionOwners.get(sessionId);
        if (owner !== who) {
          facts.outcome = owner === undefined ? 'session_unbound' : 'session_foreign';
          return (response = sessionNotFound());
        }
      }
      response = await serve(authInfo);
      const issued = response.headers.get('mcp-session-id');
      if (issued && sessionId === undefined) {
        sessionOwners.set(issued, who);
        if (sessionOwners.size > maxBindings) sessionOwners.delete(sessionOwners.keys().next().value!);
      }
      // The session ended (DELETE) or the MCP layer no longer knows it (expired): forget its owner.
      if (sessionId !== undefined && ((c.req.method === 'DELETE' && response.ok) || response.status === 404)) sessionOwners.delete(sessionId);
      return response;
    } finally {
      const record = requestRecordOf(c.req.raw);
      const tool = record?.target ?? record?.tool;
      o.audit.write({
        ts: new Date(o.now()).toISOString(),
        ip,
        method: c.req.method,
        path: c.req.path,
        status: response!?.status ?? 500,
        duration_ms: Math.round(performance.now() - started),
        ...facts,
        ...(tool ? { tool } : {}),
        outcome: facts.outcome ?? record?.category ?? `http_${response!?.status ?? 500}`,
      });
    }
  };
}
