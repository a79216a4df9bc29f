import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { baseUrlProblem } from './base-url.js';

// A client for one Hermes API server (Hermes' gateway/platforms/api_server.py): chat completions
// for sync tasks, runs for async ones. Every request carries the agent's bearer key, follows no
// redirect (a redirect could leave loopback/Tailscale), has a deadline, and reads at most
// `maxBytes` of the answer. The base URL is re-checked here, not only when the registry loaded.

export interface RunStatus {
  run_id: string;
  status: string;
  session_id?: string;
  output?: string;
  error?: string;
  created_at?: number | string;
  updated_at?: number | string;
  [key: string]: unknown;
}

export interface ChatReply {
  content: string;
  /** OpenAI's finish_reason: Hermes answers `stop`, `length` (partial, truncated) or `error`. */
  finishReason?: string;
  model?: string;
  usage?: unknown;
}

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

export class HermesApi {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    private readonly maxBytes: number,
  ) {
    const problem = baseUrlProblem(baseUrl);
    if (problem) throw new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `agent base_url refused: ${problem}`);
  }

  /** POST /v1/chat/completions (X-Hermes-Session-Id keeps the transcript of `sessionId`). */
  async chat(messages: Array<{ role: string; content: string }>, sessionId: string, signal: AbortSignal): Promise<ChatReply> {
    const a = await this.request('POST', '/v1/chat/completions', signal, { model: 'hermes-agent', messages, stream: false }, { 'x-hermes-session-id': sessionId });
    if (a.status !== 200) throw upstreamError('chat completion', a);
    const body = a.body as { model?: string; usage?: unknown; choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> };
    const content = body.choices?.[0]?.message?.content;
    const finishReason = body.choices?.[0]?.finish_reason;
    if (typeof content !== 'string') throw new GatewayError(ErrorCode.UPSTREAM_FAILED, 'the Hermes API answered a chat completion without message content');
    return {
      content,
      ...(typeof finishReason === 'string' ? { finishReason } : {}),
      ...(body.model ? { model: body.model } : {}),
      ...(body.usage !== undefined ? { usage: body.usage } : {}),
    };
  }

  /** POST /v1/runs with `Idempotency-Key`: 202 {run_id}. A key reused with another body is 409 (DUPLICATE_ID). */
  async createRun(body: Record<string, unknown>, idempotencyKey: string, signal: AbortSignal): Promise<{ runId: string; replayed: boolean }> {
    const a = await this.request('POST', '/v1/runs', signal, body, { 'idempotency-key': idempotencyKey });
    if (a.status === 409) {
      throw new GatewayError(ErrorCode.DUPLICATE_ID, `task id ${idempotencyKey} was already submitted to this agent with a different task; choose another id`);
    }
    const runId = (a.body as { run_id?: unknown } | null)?.run_id;
    if (a.status !== 202 && a.status !== 200) throw upstreamError('run submission', a);
    if (typeof runId !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(runId)) throw new GatewayError(ErrorCode.UPSTREAM_FAILED, 'the Hermes API accepted a run without a usable run_id');
    return { runId, replayed: a.headers.get('idempotency-replayed') === 'true' };
  }

  /** GET /v1/runs/{id}; undefined when the API no longer knows the run (404). */
  async getRun(runId: string, signal: AbortSignal): Promise<RunStatus | undefined> {
    const a = await this.request('GET', `/v1/runs/${encodeURIComponent(runId)}`, signal);
    if (a.status === 404) return undefined;
    if (a.status !== 200) throw upstreamError('run status', a);
    return a.body as RunStatus;
  }

  /** GET /health (no key needed, sent anyway): true when the server answers 200. */
  async healthy(signal: AbortSignal): Promise<boolean> {
    try {
      return (await this.request('GET', '/health', signal)).status === 200;
    } catch {
      return false;
    }
  }

  private async request(method: string, path: string, signal: AbortSignal, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        redirect: 'error',
        signal,
        headers: { authorization: `Bearer ${this.key}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (e) {
      const cause = causeOf(e);
      // Only a connection that was never made proves nothing was sent. A socket closed or reset
      // after the request went out leaves the outcome unknown: the agent may have the task.
      if (aborted(signal) || NEVER_CONNECTED.has(cause)) throw aborted(signal) ?? new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `the Hermes API at ${this.baseUrl} is unreachable: ${cause}`, { unavailable_reason: 'unreachable' });
      throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `the Hermes API at ${this.baseUrl} closed the connection without an answer (${cause}); the agent may have received the request`, { outcome: 'unknown' });
    }
    let text: string;
    try {
      text = await readCapped(response, this.maxBytes);
    } catch (e) {
      throw aborted(signal) ?? e;
    }
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = { error: { message: text.slice(0, 200) } };
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }
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

function upstreamError(what: string, a: Answer): GatewayError {
  const err = (a.body as { error?: { message?: unknown; code?: unknown } | string } | null)?.error;
  const message = typeof err === 'string' ? err : typeof err?.message === 'string' ? err.message : '';
  const code = typeof err === 'object' && typeof err?.code === 'string' ? ` (${err.code})` : '';
  if (a.status === 401 || a.status === 403) {
    return new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `the Hermes API refused the agent's key (${a.status})`, { unavailable_reason: 'key_rejected' });
  }
  if (a.status === 429) {
    // Hermes' max_concurrent_runs: every agent-serving endpoint answers 429 + Retry-After while it is full.
    const retryAfter = Number(a.headers.get('retry-after'));
    const seconds = Number.isInteger(retryAfter) && retryAfter >= 0 ? retryAfter : 1;
    return new GatewayError(ErrorCode.AGENT_BUSY, `the Hermes agent is running as many tasks as it allows (HTTP 429); retry in ${seconds} s`, { retryable: true, retry_after_seconds: seconds, http_status: 429 });
  }
  // An incomplete agent run is 502 agent_incomplete with the (already redacted) reason in X-Hermes-Error.
  const reason = message || (a.headers.get('x-hermes-error') ?? '');
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
