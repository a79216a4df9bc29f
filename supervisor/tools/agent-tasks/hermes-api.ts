import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { usableVersion } from '../../platform/hermes/release.js';
import { baseUrlProblem, profileOf } from './base-url.js';
import { ABSENT, agentIdentity, parseCapabilities, type AgentCapabilities } from './capabilities.js';
import { errorCodeOf, formatSeconds, hermesRequest, keyRejectedMessage, notServedMessage, upstreamError, type Answer } from './hermes-http.js';

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

/** Why an agent cannot take a task: the stable reason, and what to do about it. */
export interface Unavailability {
  reason: 'unreachable' | 'key_rejected' | 'profile_not_served';
  message: string;
}

export class HermesApi {
  /** This (base URL, key) pair by the key's digest: what the capability cache keys on. */
  readonly identity: string;

  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    private readonly maxBytes: number,
  ) {
    const problem = baseUrlProblem(baseUrl);
    if (problem) throw new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `agent base_url refused: ${problem}`);
    this.identity = agentIdentity(baseUrl, key);
  }

  /** POST /v1/chat/completions (X-Hermes-Session-Id keeps the transcript of `sessionId`). */
  async chat(messages: Array<{ role: string; content: string }>, sessionId: string, signal: AbortSignal): Promise<ChatReply> {
    const a = await this.request('POST', '/v1/chat/completions', signal, { model: 'hermes-agent', messages, stream: false }, { 'x-hermes-session-id': sessionId });
    if (a.status !== 200) throw upstreamError('chat completion', a, this.baseUrl);
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
   * POST /v1/runs: 202 {run_id, status: "started"}. With `idempotency` (only where the agent's
   * capabilities say POST /v1/runs honours Idempotency-Key: Hermes' api_server_runs.py _handle_runs
   * and RunIdempotencyStore) the header is sent: a repeat with the same body is answered with the
   * first run (202, `replayed: true`, header Idempotency-Replayed), one with another body 409
   * idempotency_key_conflict (DUPLICATE_ID here; the 409 names no run to adopt). Hermes that does not
   * honour the key starts a new run for every POST, so none is sent to it.
   */
  async createRun(body: Record<string, unknown>, signal: AbortSignal, idempotency?: { key: string; agent: string; retentionSeconds: number }): Promise<{ runId: string; replayed: boolean }> {
    const a = await this.request('POST', '/v1/runs', signal, body, idempotency ? { 'idempotency-key': idempotency.key } : {});
    const answer = a.body as { run_id?: unknown; replayed?: unknown } | null;
    if (a.status === 409 && errorCodeOf(a) === 'idempotency_key_conflict' && idempotency) {
      const window = idempotency.retentionSeconds > 0 ? `within the ${formatSeconds(idempotency.retentionSeconds)} Hermes remembers a key` : 'while Hermes still remembers the key';
      throw new GatewayError(
        ErrorCode.DUPLICATE_ID,
        `agent ${idempotency.agent} already ran another request under task id ${idempotency.key} ${window} (Idempotency-Key conflict: another gateway or bridge used the id, TASKS_DIR lost its run.json, or the session moved on since a lost first attempt); choose another id`,
        { reason: 'idempotency_key_conflict', agent: idempotency.agent, ...(idempotency.retentionSeconds > 0 ? { retention_seconds: idempotency.retentionSeconds } : {}) },
      );
    }
    if (a.status === 400 && errorCodeOf(a) === 'invalid_idempotency_key') {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `the Hermes API refused task id ${idempotency?.key ?? ''} as its Idempotency-Key (invalid_idempotency_key)`);
    }
    if (a.status !== 202 && a.status !== 200) throw upstreamError('run submission', a, this.baseUrl);
    const runId = answer?.run_id;
    if (typeof runId !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(runId)) throw new GatewayError(ErrorCode.UPSTREAM_FAILED, 'the Hermes API accepted a run without a usable run_id');
    return { runId, replayed: answer?.replayed === true || a.headers.get('idempotency-replayed')?.trim().toLowerCase() === 'true' };
  }

  /**
   * GET /v1/capabilities (authenticated, runs nothing): what this API server says it can do
   * (capabilities.ts), with the version its GET /health reports. A server without the route
   * (404/405) is `absent`; a refused key is the key's problem (AGENT_UNAVAILABLE key_rejected), any
   * other failure UPSTREAM_FAILED.
   */
  async capabilities(signal: AbortSignal): Promise<AgentCapabilities> {
    const [a, health] = await Promise.all([this.request('GET', '/v1/capabilities', signal), this.request('GET', '/health', signal)]);
    const reported = health.status === 200 ? (health.body as { version?: unknown } | null)?.version : undefined;
    const version = typeof reported === 'string' ? usableVersion(reported) : undefined;
    const withVersion = (c: AgentCapabilities): AgentCapabilities => (version ? { ...c, version } : c);
    if (a.status === 200) return withVersion(parseCapabilities(a.body));
    if (a.status === 404 || a.status === 405) return withVersion(ABSENT);
    throw upstreamError('capabilities', a, this.baseUrl);
  }

  /**
   * POST /v1/runs/{id}/stop: Hermes interrupts the run's agent and answers {status: "stopping"}
   * (the run then settles `cancelled`). A run already finished is answered with its status object
   * by newer Hermes, 404 run_not_found by 0.19 (it only knows active runs); 409 run_not_active means
   * Hermes has the run on record but not running in its process (UPSTREAM_FAILED). A 404/405 that is
   * not Hermes' run_not_found is a server without the route.
   */
  async stopRun(runId: string, signal: AbortSignal): Promise<{ kind: 'stopping' } | { kind: 'status'; status: RunStatus } | { kind: 'not_found' } | { kind: 'no_route' }> {
    const a = await this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/stop`, signal);
    if (a.status === 200) {
      const status = a.body as RunStatus | null;
      if (status?.status === 'stopping' || typeof status?.status !== 'string') return { kind: 'stopping' };
      return { kind: 'status', status };
    }
    if (a.status === 404 && errorCodeOf(a) === 'run_not_found') return { kind: 'not_found' };
    if (a.status === 404 || a.status === 405) return { kind: 'no_route' };
    if (a.status === 409 && errorCodeOf(a) === 'run_not_active') {
      throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `the Hermes API at ${this.baseUrl} has run ${runId} on record but not running in its process (run_not_active: another Hermes process, or one restarted since, owns it); it cannot be stopped from here`, { http_status: 409, hermes_code: 'run_not_active' });
    }
    throw upstreamError('run stop', a, this.baseUrl);
  }

  /** GET /v1/runs/{id}; undefined when the API no longer knows the run (404). */
  async getRun(runId: string, signal: AbortSignal): Promise<RunStatus | undefined> {
    const a = await this.request('GET', `/v1/runs/${encodeURIComponent(runId)}`, signal);
    if (a.status === 404) return undefined;
    if (a.status !== 200) throw upstreamError('run status', a, this.baseUrl);
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
    if (a.status !== 200) throw upstreamError('session lookup', a, this.baseUrl);
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
   * (404: the bridge session's first turn). Only the tip's own messages are kept: newer Hermes
   * answers the whole compression lineage, root to tip (hermes_state_messages.py get_messages with
   * include_ancestors), every row naming its session_id, while the tip already opens with the
   * summary of what its ancestors held (0.19 answered the tip's rows only). A row naming no session
   * is kept.
   */
  async sessionMessages(sessionId: string, signal: AbortSignal): Promise<{ sessionId: string; messages: SessionMessage[] } | undefined> {
    const m = await this.request('GET', `/api/sessions/${encodeURIComponent(sessionId)}/messages`, signal);
    if (m.status === 404) return undefined;
    if (m.status !== 200) throw upstreamError('session messages', m, this.baseUrl);
    const body = m.body as { session_id?: unknown; data?: unknown } | null;
    if (typeof body?.session_id !== 'string' || !Array.isArray(body.data)) throw new GatewayError(ErrorCode.UPSTREAM_FAILED, `the Hermes API answered session ${sessionId}'s messages without session_id and data`);
    const tip = body.session_id;
    const messages = (body.data as SessionMessage[]).filter((row) => row === null || typeof row !== 'object' || row.session_id === undefined || row.session_id === tip);
    return { sessionId: tip, messages };
  }

  /**
   * Whether the agent can take a task: GET /health (unauthenticated on Hermes) answers 200, then
   * servingCheck(). Undefined when it can; else why not. A /p/<profile> whose /health is 404 while
   * the listener's own /health answers is a profile Hermes does not serve (newer Hermes answers an
   * unknown or unserved prefix 404 on every path, upstream PR #92871), not an unreachable agent.
   */
  async probe(signal: AbortSignal): Promise<Unavailability | undefined> {
    try {
      const health = await this.request('GET', '/health', signal);
      if (health.status !== 200) {
        const profile = profileOf(this.baseUrl);
        if (health.status === 404 && profile !== undefined && (await this.request('GET', '/health', signal, undefined, {}, this.listener())).status === 200) {
          return { reason: 'profile_not_served', message: notServedMessage(this.baseUrl, profile, 'answers it 404') };
        }
        return { reason: 'unreachable', message: `the Hermes API at ${this.baseUrl} answered /health with HTTP ${health.status}` };
      }
      return await this.servingCheck(signal);
    } catch (e) {
      return { reason: 'unreachable', message: e instanceof Error ? e.message : String(e) };
    }
  }

  /**
   * GET /v1/models (authenticated, runs no agent): whether the key is accepted and, for a
   * `/p/<profile>` base URL, whether that profile answers. Which key a /p/<profile> takes depends on
   * the Hermes: 0.19 checks every path against the listener's API_SERVER_KEY; later Hermes checks a
   * named profile against that profile's own API_SERVER_KEY (its .env; upstream PR #72285,
   * api_server.py _expected_api_key), and no flag says which. So a refused /p/<profile> key is tried
   * on the listener's root: accepted there, it is the listener's key and this Hermes wants the
   * profile's own (0.19 never refuses the listener's key on a prefix). A listener without
   * gateway.multiplex_profiles serves its own profile under any prefix (0.19: its model id is then
   * not the profile's name; under multiplexing a profile's /v1/models lists its name first) or
   * answers the prefix 404 (newer Hermes).
   */
  async servingCheck(signal: AbortSignal): Promise<Unavailability | undefined> {
    const a = await this.request('GET', '/v1/models', signal);
    const profile = profileOf(this.baseUrl);
    if (a.status === 401 || a.status === 403) {
      if (profile === undefined) return { reason: 'key_rejected', message: keyRejectedMessage(this.baseUrl, a.status) };
      const root = await this.request('GET', '/v1/models', signal, undefined, {}, this.listener());
      return { reason: 'key_rejected', message: keyRejectedMessage(this.baseUrl, a.status, root.status === 200) };
    }
    // Hermes advertises no name for these two (its _resolve_model_name), so they cannot be told apart.
    if (profile === undefined || profile === 'default' || profile === 'custom') return undefined;
    if (a.status === 404) return { reason: 'profile_not_served', message: notServedMessage(this.baseUrl, profile, 'answers it 404') };
    const first = (a.body as { data?: Array<{ id?: unknown }> } | null)?.data?.[0]?.id;
    if (a.status === 200 && first === profile) return undefined;
    return { reason: 'profile_not_served', message: notServedMessage(this.baseUrl, profile, a.status === 200 ? `answers it as ${typeof first === 'string' ? first : 'another profile'}` : `answers /v1/models with HTTP ${a.status}`) };
  }

  /** The listener's own root (the base URL without /p/<profile>). */
  private listener(): string {
    return new URL(this.baseUrl).origin;
  }

  private request(method: string, path: string, signal: AbortSignal, body?: unknown, headers: Record<string, string> = {}, base = this.baseUrl): Promise<Answer> {
    return hermesRequest({ baseUrl: this.baseUrl, key: this.key, maxBytes: this.maxBytes }, { method, url: base + path, signal, body, headers });
  }
}
