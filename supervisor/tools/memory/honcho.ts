import type { Honcho, HonchoError, Peer, Session } from '@honcho-ai/sdk';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redactOutbound } from '../../core/redaction.js';
import type { ProbeResult } from '../../platform/health/readiness.js';
import type { HonchoSettings } from './config.js';
import { monotonicMs } from '../../../shared/clock.js';

// One Honcho client for the process, built with the official SDK from the resolved Hermes
// configuration. The gateway never retries (maxRetries 0): a retried mutation is a replay.
// The SDK's HTTP timeout is the worker ceiling (memoryWorkerMaxSeconds), not the tool budget: a
// tool answers after memoryTimeoutSeconds while its request may still be running, and that request
// stays counted until it really ends (see tools.ts).

/** The SDK objects every tool needs: the workspace exists and both peers were get-or-created. */
export interface Prepared {
  honcho: Honcho;
  user: Peer;
  assistant: Peer;
  /** The peer whose view of the user the reads take (settings.readObserver): Hermes' assistant peer, or the user. */
  observer: Peer;
  /** A handle on an existing session, without the SDK's session get-or-create. */
  session(id: string): Session;
}

// The SDK is loaded when Honcho is first used, not at startup: a gateway without a Honcho
// configuration never needs it, and it costs ~12 MB of idle RSS. Until it is loaded no SDK error
// can exist, so the classifiers below answer "not an SDK error" without it.
type HonchoSdk = typeof import('@honcho-ai/sdk');
let sdk: HonchoSdk | undefined;
const loadSdk = async (): Promise<HonchoSdk> => (sdk ??= await import('@honcho-ai/sdk'));

type SdkFailure = { kind: 'timeout' } | { kind: 'connection'; message: string } | { kind: 'http'; error: HonchoError };
function sdkFailure(e: unknown): SdkFailure | undefined {
  if (!sdk) return undefined;
  if (e instanceof sdk.TimeoutError) return { kind: 'timeout' };
  if (e instanceof sdk.ConnectionError) return { kind: 'connection', message: e.message };
  if (e instanceof sdk.HonchoError) return { kind: 'http', error: e };
  return undefined;
}

const PROBE_TIMEOUT_MS = 4000;

/** The base URL for messages and /readyz: userinfo dropped, never the key. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid url)';
  }
}

export class HonchoBackend {
  private prepared?: Promise<Prepared>;

  constructor(
    readonly settings: HonchoSettings,
    private readonly workerMaxMs: number,
  ) {}

  private async newClient(): Promise<Honcho> {
    const { identity, baseURL, apiKey } = this.settings;
    const { Honcho } = await loadSdk();
    return new Honcho({ baseURL, workspaceId: identity.workspace, timeout: this.workerMaxMs, maxRetries: 0, ...(apiKey ? { apiKey } : {}) });
  }

  /**
   * Workspace get-or-create (the SDK does it once per client) and both peers, memoized on success.
   * A failure drops the client too: the SDK memoizes a failed workspace call forever.
   */
  prepare(): Promise<Prepared> {
    if (!this.prepared) {
      const attempt = (async () => {
        const honcho = await this.newClient();
        const { Session } = await loadSdk();
        const { userPeer, assistantPeer } = this.settings.identity;
        const { readObserver } = this.settings;
        // Hermes' assistant peer is get-or-created like the other two (Hermes' own start-up does the
        // same), so a Honcho that Hermes has not used yet answers "nothing known" rather than 404.
        const [user, assistant, observer] = await Promise.all([
          honcho.peer(userPeer),
          honcho.peer(assistantPeer),
          readObserver === userPeer || readObserver === assistantPeer ? undefined : honcho.peer(readObserver),
        ]);
        return { honcho, user, assistant, observer: observer ?? (readObserver === assistantPeer ? assistant : user), session: (id: string) => new Session(id, honcho.workspaceId, honcho.http) };
      })();
      this.prepared = attempt;
      attempt.catch(() => {
        if (this.prepared === attempt) this.prepared = undefined;
      });
    }
    return this.prepared;
  }

  /** /readyz: Honcho answers the workspace get-or-create for the configured identity. */
  async probe(): Promise<ProbeResult> {
    const { identity, baseURL, source, apiKeySource, warnings } = this.settings;
    const details = {
      base_url: displayUrl(baseURL),
      workspace: identity.workspace,
      user_peer: identity.userPeer,
      assistant_peer: identity.assistantPeer,
      session: identity.session,
      host: identity.host,
      config: source,
      api_key: apiKeySource,
      ...(warnings.length > 0 ? { warnings: warnings.map((w) => redactOutbound(w)) } : {}),
    };
    const started = monotonicMs();
    try {
      await (await this.newClient()).http.post('/v3/workspaces', { body: { id: identity.workspace }, timeout: PROBE_TIMEOUT_MS });
      return { ready: true, status: 'ok', details: { ...details, latency_ms: monotonicMs() - started } };
    } catch (e) {
      return {
        ready: false,
        status: 'error',
        reason: redactOutbound(describeFailure(e, baseURL)),
        action: `start Honcho at ${displayUrl(baseURL)} or correct its address and key in ${source}, or set HERMES_MCP_OPTIONAL_COMPONENTS=memory to run without it`,
        details,
      };
    }
  }
}

/** A one-line, key-free description of why a Honcho call failed. */
export function describeFailure(e: unknown, baseURL: string): string {
  const where = `Honcho at ${displayUrl(baseURL)}`;
  const failure = sdkFailure(e);
  if (failure?.kind === 'timeout') return `${where} did not answer in time`;
  if (failure?.kind === 'connection') return `${where} is unreachable (${failure.message})`;
  if (failure?.kind === 'http') {
    const { status, body, message } = failure.error;
    if (status === 401 || status === 403) return `${where} refused the credentials (HTTP ${status})`;
    return `${where} answered HTTP ${status}: ${validationDetail(body) ?? message}`;
  }
  return `${where}: ${e instanceof Error ? e.message : String(e)}`;
}

/** FastAPI's 422 `detail` list as `loc: msg; …` (the SDK turns it into "[object Object]"). */
function validationDetail(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (!Array.isArray(detail)) return undefined;
  return detail
    .slice(0, 5)
    .map((d: { loc?: unknown[]; msg?: unknown }) => `${Array.isArray(d.loc) ? d.loc.join('.') : '?'}: ${String(d.msg ?? 'invalid')}`)
    .join('; ');
}

/** The HTTP status of a Honcho answer, if the failure was one. */
export function honchoStatus(e: unknown): number | undefined {
  const failure = sdkFailure(e);
  return failure?.kind === 'http' ? failure.error.status : undefined;
}

/** A Honcho failure as the stable gateway error a client sees (reads and definite write failures). */
export function toGatewayError(e: unknown, baseURL: string): GatewayError {
  const message = describeFailure(e, baseURL);
  const failure = sdkFailure(e);
  if (failure?.kind === 'timeout') return new GatewayError(ErrorCode.MEMORY_TIMEOUT, message);
  const status = honchoStatus(e);
  if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
    return new GatewayError(ErrorCode.MEMORY_REJECTED, message, { http_status: status });
  }
  if (failure) return new GatewayError(ErrorCode.MEMORY_UNAVAILABLE, message, status ? { http_status: status } : undefined);
  // Not an SDK error (a bug, or the SDK rejecting its own input): let the dispatcher log it.
  throw e;
}
