import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { baseUrlProblem, profileOf } from './base-url.js';

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
  /**
   * The answer's X-Hermes-Session-Id: the session Hermes kept the turn in. It differs from the id
   * sent when Hermes' context compression rotated the session during the turn.
   */
  sessionId?: string;
}

/** One stored message as Hermes' session API shows it (api_server.py _message_response). */
export interface SessionMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  [key: string]: unknown;
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
    const session = a.headers.get('x-hermes-session-id')?.trim();
    return {
      content,
      ...(session ? { sessionId: session } : {}),
      ...(typeof finishReason === 'string' ? { finishReason } : {}),
      ...(body.model ? { model: body.model } : {}),
      ...(body.usage !== undefined ? { usage: body.usage } : {}),
    };
  }

  /**
   * POST /v1/runs: 202 {run_id, status: "started"}. `Idempotency-Key` is sent, but Hermes (0.19)
   * ignores it on /v1/runs (only non-streaming chat completions and responses are cached by it):
   * every POST starts a new run, so the bridge keeps runs idempotent itself (run.json per task id).
   */
  async createRun(body: Record<string, unknown>, idempotencyKey: string, signal: AbortSignal): Promise<string> {
    const a = await this.request('POST', '/v1/runs', signal, body, { 'idempotency-key': idempotencyKey });
    const runId = (a.body as { run_id?: unknown } | null)?.run_id;
    if (a.status !== 202 && a.status !== 200) throw upstreamError('run submission', a);
    if (typeof runId !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(runId)) throw new GatewayError(ErrorCode.UPSTREAM_FAILED, 'the Hermes API accepted a run without a usable run_id');
    return runId;
  }

  /** GET /v1/runs/{id}; undefined when the API no longer knows the run (404). */
  async getRun(runId: string, signal: AbortSignal): Promise<RunStatus | undefined> {
    const a = await this.request('GET', `/v1/runs/${encodeURIComponent(runId)}`, signal);
    if (a.status === 404) return undefined;
    if (a.status !== 200) throw upstreamError('run status', a);
    return a.body as RunStatus;
  }

  /**
   * The session Hermes continues `sessionId` in once its context compression ended it
   * (compression.in_place: false), for a turn whose answer did not say (an async run: Hermes'
   * /v1/runs status and events keep the session id the run was given). GET /api/sessions/{id}
   * shows the ended session's end_reason "compression" but names no child; GET
   * /api/sessions/{id}/messages answers for the session Hermes would resume under that id
   * (SessionDB.resolve_resume_session_id walks the compression chain to its tip) and names it in
   * `session_id`. Undefined when Hermes knows no such session or it did not end by compression.
   */
  async sessionContinuation(sessionId: string, signal: AbortSignal): Promise<string | undefined> {
    const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
    const a = await this.request('GET', path, signal);
    if (a.status === 404) return undefined;
    if (a.status !== 200) throw upstreamError('session lookup', a);
    if ((a.body as { session?: { end_reason?: unknown } } | null)?.session?.end_reason !== 'compression') return undefined;
    const resolved = (await this.sessionMessages(sessionId, signal))?.sessionId;
    if (resolved === undefined || resolved === sessionId) {
      throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `Hermes ended session ${sessionId} by compression but names no session continuing it`);
    }
    return resolved;
  }

  /**
   * GET /api/sessions/{id}/messages: the stored transcript of the session Hermes would resume under
   * `sessionId` (SessionDB.resolve_resume_session_id follows a compression chain to its tip, named in
   * `session_id`), its active rows in insertion order. Undefined when Hermes knows no such session
   * (404: the bridge session's first turn).
   */
  async sessionMessages(sessionId: string, signal: AbortSignal): Promise<{ sessionId: string; messages: SessionMessage[] } | undefined> {
    const m = await this.request('GET', `/api/sessions/${encodeURIComponent(sessionId)}/messages`, signal);
    if (m.status === 404) return undefined;
    if (m.status !== 200) throw upstreamError('session messages', m);
    const body = m.body as { session_id?: unknown; data?: unknown } | null;
    if (typeof body?.session_id !== 'string' || !Array.isArray(body.data)) throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `the Hermes API answered session ${sessionId}'s messages without session_id and data`);
    return { sessionId: body.session_id, messages: body.data as SessionMessage[] };
  }

  /**
   * Whether the agent can take a task: GET /health (unauthenticated on Hermes) answers 200, then
   * servingCheck(). Undefined when it can; else why not.
   */
  async probe(signal: AbortSignal): Promise<'unreachable' | 'key_rejected' | 'profile_not_served' | undefined> {
    try {
      if ((await this.request('GET', '/health', signal)).status !== 200) return 'unreachable';
      return await this.servingCheck(signal);
    } catch {
      return 'unreachable';
    }
  }

  /**
   * GET /v1/models (authenticated, runs no agent): whether the key is accepted and, for a
   * `/p/<profile>` base URL, whether that profile answers. Hermes checks every path of a listener,
   * /p/<profile> included, against the listener's own API_SERVER_KEY (a profile's own key is
   * refused); a listener without gateway.multiplex_profiles ignores the /p/<profile> prefix and
   * serves its own profile, whose model id is not the profile's name (under multiplexing, a
   * profile's /v1/models lists its name first).
   */
  async servingCheck(signal: AbortSignal): Promise<'key_rejected' | 'profile_not_served' | undefined> {
    const a = await this.request('GET', '/v1/models', signal);
    if (a.status === 401 || a.status === 403) return 'key_rejected';
    const profile = profileOf(this.baseUrl);
    // Hermes advertises no name for these two (its _resolve_model_name), so they cannot be told apart.
    if (profile === undefined || profile === 'default' || profile === 'custom') return undefined;
    const first = (a.body as { data?: Array<{ id?: unknown }> } | null)?.data?.[0]?.id;
    return a.status === 200 && first === profile ? undefined : 'profile_not_served';
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
