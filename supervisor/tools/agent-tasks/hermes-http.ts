import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { profileOf } from './base-url.js';

// One request to a Hermes API server and what its failures mean: the agent's bearer key, no
// redirect (a redirect could leave loopback/Tailscale), at most `maxBytes` of the answer read, and
// an error that says whether the agent may have received the request.

export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** The agent's API server a request goes to. */
export interface ApiTarget {
  baseUrl: string;
  key: string;
  maxBytes: number;
}

export interface ApiRequest {
  method: string;
  url: string;
  signal: AbortSignal;
  body?: unknown;
  headers: Record<string, string>;
}

export async function hermesRequest(target: ApiTarget, request: ApiRequest): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      redirect: 'error',
      signal: request.signal,
      headers: { authorization: `Bearer ${target.key}`, accept: 'application/json', ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
  } catch (e) {
    const cause = causeOf(e);
    // Only a connection that was never made proves nothing was sent. A socket closed or reset
    // after the request went out leaves the outcome unknown: the agent may have the task.
    if (aborted(request.signal) || NEVER_CONNECTED.has(cause)) throw aborted(request.signal) ?? new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `the Hermes API at ${target.baseUrl} is unreachable: ${cause}`, { unavailable_reason: 'unreachable' });
    throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `the Hermes API at ${target.baseUrl} closed the connection without an answer (${cause}); the agent may have received the request`, { outcome: 'unknown' });
  }
  let text: string;
  try {
    text = await readCapped(response, target.maxBytes);
  } catch (e) {
    throw aborted(request.signal) ?? e;
  }
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = { error: { message: text.slice(0, 200) } };
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Connection errors raised before a request could be sent (fetch's cause codes). */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** The error for an aborted request: the deadline's own (TASK_TIMEOUT), else a cancellation. */
function aborted(signal: AbortSignal): GatewayError | undefined {
  if (!signal.aborted) return undefined;
  return signal.reason instanceof GatewayError ? signal.reason : new GatewayError(ErrorCode.CANCELLED, 'the request to the Hermes API was cancelled');
}

function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}

/** Hermes' error code in an OpenAI-style error body ({error: {code}}), if any. */
export function errorCodeOf(a: Answer): string | undefined {
  const err = (a.body as { error?: { code?: unknown } | string } | null)?.error;
  return typeof err === 'object' && err !== null && typeof err.code === 'string' ? err.code : undefined;
}

export function formatSeconds(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/**
 * What a refused key means for this base URL. A listener's root takes the listener's
 * API_SERVER_KEY on every Hermes. A /p/<profile> takes the listener's key on Hermes 0.19 and the
 * profile's own key on later Hermes; `listenerAccepts` (the same key tried on the listener's root)
 * tells which rule refused it when known.
 */
export function keyRejectedMessage(baseUrl: string, status: number, listenerAccepts?: boolean): string {
  const profile = profileOf(baseUrl);
  if (profile === undefined) return `the Hermes API at ${baseUrl} refused the agent's key (HTTP ${status})`;
  const profileEnv = `~/.hermes/profiles/${profile}/.env`;
  if (listenerAccepts) {
    return `the Hermes API at ${new URL(baseUrl).origin} accepts this key on its listener but refuses it for /p/${profile} (HTTP ${status}): this Hermes (v0.20 and later) checks each /p/<profile> against that profile's own API_SERVER_KEY, in the profile's .env (such as ${profileEnv}), at least 16 characters; name it in the agent registry with key_env_file, key_file or key_env`;
  }
  return `the Hermes API at ${baseUrl} refused the agent's key for /p/${profile} (HTTP ${status}): Hermes v0.20 and later take that profile's own API_SERVER_KEY (its .env, such as ${profileEnv}; a profile without one of at least 16 characters refuses every key), Hermes 0.19 the listener's (the default profile's)`;
}

export function notServedMessage(baseUrl: string, profile: string, how: string): string {
  return `the Hermes API at ${new URL(baseUrl).origin} does not serve profile ${profile} (it ${how}): gateway.multiplex_profiles is off, or Hermes has no such profile`;
}

export function upstreamError(what: string, a: Answer, baseUrl: string): GatewayError {
  const err = (a.body as { error?: { message?: unknown; code?: unknown } | string } | null)?.error;
  const message = typeof err === 'string' ? err : typeof err?.message === 'string' ? err.message : '';
  const code = typeof err === 'object' && typeof err?.code === 'string' ? ` (${err.code})` : '';
  if (a.status === 401 || a.status === 403) {
    return new GatewayError(ErrorCode.AGENT_UNAVAILABLE, keyRejectedMessage(baseUrl, a.status), { unavailable_reason: 'key_rejected' });
  }
  if (a.status === 429) {
    // Hermes' max_concurrent_runs: every agent-serving endpoint answers 429 + Retry-After while it is full.
    // No header (or an HTTP date) is not "now": Number(null) would read as 0 s.
    const header = a.headers.get('retry-after')?.trim();
    const retryAfter = header ? Number(header) : Number.NaN;
    const seconds = Number.isInteger(retryAfter) && retryAfter >= 0 ? retryAfter : 1;
    return new GatewayError(ErrorCode.AGENT_BUSY, `the Hermes agent is running as many tasks as it allows (HTTP 429); retry in ${seconds} s`, { retryable: true, retry_after_seconds: seconds, http_status: 429 });
  }
  // An agent run that failed without any answer text is 502 agent_incomplete, its (already
  // redacted) reason in the body's error.message; Hermes sends X-Hermes-Error only on a 200.
  const reason = message;
  return new GatewayError(ErrorCode.UPSTREAM_FAILED, `Hermes API ${what} failed with HTTP ${a.status}${code}${reason ? `: ${reason.slice(0, 200)}` : ''}`, { http_status: a.status });
}

/** The body as text, refusing more than `max` bytes (the stream is cancelled at the first byte over). */
async function readCapped(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `the Hermes API answer exceeds ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
