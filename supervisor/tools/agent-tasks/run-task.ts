import { createHash } from 'node:crypto';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { withKeyedLocks } from '../../../shared/keyed-lock.js';
import { profileOf } from './base-url.js';
import type { SessionMessage } from './hermes-api.js';
import { resultFromReply } from './reply.js';
import { agentRelease, capabilitiesOf, readContract, resolveAgent, withDeadline, type BridgeService } from './service.js';
import { newTaskId, type RunRecord, type TaskResult } from './tasks.js';

// hermes_task: hand one whole task to a Hermes agent.
//   sync  -> POST /v1/chat/completions (X-Hermes-Session-Id), wait, persist result.json
//   async -> POST /v1/runs (session_id; Idempotency-Key: <id> where the agent's capabilities say
//            Hermes honours it), write run.json at once, answer accepted; a repeat of the id is the
//            recorded run (the same task) or duplicate_id (another task).
//            In a bridge session the run also carries the session's stored turns as
//            conversation_history (GET /api/sessions/{id}/messages) where Hermes' /v1/runs does not
//            load them itself, as its chat completion does (0.19; runHistory).
// The agent is resolved (unknown_agent / agent_unavailable) and the id checked against the agent
// that already owns it (duplicate_id) before anything is sent upstream. Calls in one session run
// one at a time (Hermes appends each turn to the session's transcript; two at once would interleave).
// A session follows Hermes when it rotates: a chat completion whose X-Hermes-Session-Id names
// another session (Hermes' context compression ended the one sent and continues in a new one) is
// recorded in the task store, and every later call in that bridge session sends the new id. An
// async run is followed when hermes_status first sees it terminal (run-status.ts): its status keeps
// the session id it was given, so the bridge asks Hermes' session API where that session went.

export interface TaskArgs {
  task: string;
  mode: 'sync' | 'async';
  context?: string;
  deliverable?: string;
  constraints?: string[];
  id?: string;
  session?: string;
  agent?: string;
}

/** The Hermes session a task runs in: shared per (agent, session), else private to the task. */
export function sessionIdFor(agent: string, id: string, session: string | undefined): string {
  return session ? `gb-sess-${agent}-${session}` : `gb-task-${id}`;
}

function prompt(args: TaskArgs, id: string, dir: string): string {
  const parts = [`## Task\n${args.task}`];
  if (args.context) parts.push(`## Context\n${args.context}`);
  if (args.deliverable) parts.push(`## Deliverable\n${args.deliverable}`);
  if (args.constraints?.length) parts.push(`## Constraints\n${args.constraints.map((c) => `- ${c}`).join('\n')}`);
  parts.push(`## Task record\nTask id: ${id}\nTask directory: ${dir} (write any artifact files here; the requester reads them with hermes_files)`);
  return parts.join('\n\n');
}

/**
 * A sync task that got no answer still leaves a durable result for hermes_result: `interrupted`
 * when the agent may still be working (the deadline passed, the caller went away, the connection
 * closed after the task was sent), `failed` with
 * the error code when the API refused or broke (429, 5xx, unreachable, a rejected key). Returns the
 * error for the caller, carrying the task id.
 */
function recordSyncFailure(service: BridgeService, id: string, details: Record<string, unknown>, e: unknown): unknown {
  const error = e instanceof GatewayError ? e : undefined;
  const finished_at = new Date().toISOString();
  let result: TaskResult;
  let thrown: unknown = e;
  if (error?.code === ErrorCode.TASK_TIMEOUT || error?.code === ErrorCode.CANCELLED || error?.details?.outcome === 'unknown') {
    const summary =
      error.code === ErrorCode.TASK_TIMEOUT ? `${error.message}; the agent may still be working. Use mode "async" for long tasks.` : error.code === ErrorCode.CANCELLED ? `${error.message} before the agent answered; the agent may still be working` : error.message;
    result = { id, status: 'interrupted', summary, artifacts: [], next_steps: [], details: { ...details, error: error.code, finished_at } };
    if (error.code === ErrorCode.TASK_TIMEOUT) thrown = new GatewayError(ErrorCode.TASK_TIMEOUT, summary, { id });
    else if (error.code !== ErrorCode.CANCELLED) thrown = new GatewayError(error.code, error.message, { ...error.details, id });
  } else {
    const retry = error?.details?.retryable === true ? [`hermes_task again with id ${id} in ${String(error.details.retry_after_seconds ?? 1)} s`] : [];
    const summary = `the task failed: ${e instanceof Error ? e.message : String(e)}`;
    result = { id, status: 'failed', summary, artifacts: [], next_steps: retry, details: { ...details, ...error?.details, error: error?.code ?? ErrorCode.UPSTREAM_FAILED, finished_at } };
    if (error) thrown = new GatewayError(error.code, error.message, { ...error.details, id });
  }
  try {
    service.store.writeResult(result);
  } catch {
    // The caller needs the task's own failure more than this write's; hermes_result then says no result.
  }
  return thrown;
}

export async function runTask(service: BridgeService, args: TaskArgs, signal: AbortSignal): Promise<Record<string, unknown>> {
  const resolved = resolveAgent(service, args.agent);
  const { agent, api } = resolved;
  const id = args.id ?? newTaskId();
  const sessionId = sessionIdFor(agent.name, id, args.session);
  // Hermes refuses a session id with `..` in it (gateway.session._is_path_unsafe: 400 "Invalid
  // session ID" on chat completions); the task id, agent and session names may each hold one.
  if (sessionId.includes('..')) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `the Hermes session id ${sessionId} (from the task id, agent and session) contains "..", which Hermes refuses; choose names without ".."`);
  }
  const contract = readContract(service);
  if (profileOf(agent.baseUrl) !== undefined) {
    // A listener without multiplexing would run the task on its own profile, silently: ask first.
    // Its key is checked the same way: which key a /p/<profile> takes depends on the Hermes.
    const refused = await api.servingCheck(withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`));
    if (refused) throw new GatewayError(ErrorCode.AGENT_UNAVAILABLE, `agent ${agent.name}: ${refused.message}`, { unavailable_reason: refused.reason });
  }
  return withKeyedLocks([`bridge-task:${id}`, `bridge-session:${sessionId}`], async () => {
    const owner = service.store.existingTaskDir(id) ? service.store.ownerOf(id) : undefined;
    if (owner !== undefined && owner !== agent.name) {
      throw new GatewayError(ErrorCode.DUPLICATE_ID, `task id ${id} belongs to agent ${owner}; choose another id`, { owner_agent: owner });
    }
    const dir = service.store.ensureTaskDir(id);
    const text = prompt(args, id, dir);
    // The Hermes session this bridge session continues now (itself until Hermes first rotates it).
    const hermesSession = service.store.hermesSessionOf(sessionId);
    const details: Record<string, unknown> = { agent: agent.name, mode: args.mode, session_id: hermesSession };
    if (args.mode === 'sync') {
      const timed = withDeadline(signal, service.limits.bridgeSyncTimeoutSeconds, `agent ${agent.name}`);
      const messages = [...(contract ? [{ role: 'system', content: contract }] : []), { role: 'user', content: text }];
      let reply;
      try {
        reply = await api.chat(messages, hermesSession, timed);
      } catch (e) {
        throw recordSyncFailure(service, id, details, e);
      }
      const rotatedTo = service.store.followRotation(sessionId, hermesSession, reply.sessionId, id);
      const finished = { ...details, ...(rotatedTo ? { session_id: rotatedTo, session_rotated_from: hermesSession } : {}), model: reply.model, usage: reply.usage, ...(reply.finishReason && reply.finishReason !== 'stop' ? { finish_reason: reply.finishReason } : {}), finished_at: new Date().toISOString() };
      const result: TaskResult =
        reply.finishReason === 'error'
          ? // Hermes ends a chat completion whose agent run failed with finish_reason "error"; its text says why.
            { id, status: 'failed', summary: `the agent reported an error: ${reply.content.slice(0, 2000)}`, artifacts: [], next_steps: [], details: { ...finished, error: 'agent_error' } }
          : resultFromReply(id, reply.content, dir, finished);
      service.store.writeResult(result);
      return publicResult(result);
    }
    // A repeat of a task id that already has a run is answered here, from run.json, without reaching
    // the agent: Hermes 0.19 and v0.20 start a new run for every POST /v1/runs, and Hermes that
    // honours Idempotency-Key forgets a key after its retention window.
    const fingerprint = taskFingerprint(args);
    const recorded = service.store.readRun(id);
    if (recorded && recorded.task_sha256 !== undefined && recorded.task_sha256 !== fingerprint) {
      throw new GatewayError(ErrorCode.DUPLICATE_ID, `task id ${id} was already submitted as run ${recorded.run_id} with a different task; choose another id (hermes_status ${recorded.run_id} follows the first one)`, { run_id: recorded.run_id });
    }
    let runId: string;
    let createdAt: string;
    if (recorded) {
      runId = recorded.run_id;
      createdAt = recorded.created_at;
    } else {
      const capabilities = await capabilitiesOf(service, resolved, signal);
      const idempotency = capabilities.runIdempotency ? { key: id, agent: agent.name, retentionSeconds: capabilities.runIdempotency.retentionSeconds } : undefined;
      // Hermes 0.19's /v1/runs loads no session history itself (its _handle_runs builds the history
      // only from the body), so a task in a bridge session sends the session's stored turns along.
      // Later Hermes loads them itself when none are sent (tool traffic and the hidden summary its
      // compression writes included, which its session API does not show), from the session's
      // live tip: there the bridge sends none.
      const hermesLoadsHistory = agentRelease(service, capabilities).has('runs_load_session_history');
      let runSession = hermesSession;
      let history: HistoryMessage[] = [];
      let sessionHistory: RunRecord['session_history'];
      if (args.session && !hermesLoadsHistory) {
        const loaded = await api.sessionMessages(hermesSession, withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`));
        if (loaded) {
          // A rotation not followed yet (an async run that compressed, its status not polled since):
          // Hermes resolved the id to the session continuing it, so the run goes there too.
          const rotatedTo = service.store.followRotation(sessionId, hermesSession, loaded.sessionId, id);
          if (rotatedTo) {
            runSession = rotatedTo;
            details.session_id = rotatedTo;
            details.session_rotated_from = hermesSession;
          }
          const shaped = runHistory(loaded.messages, service.limits.bridgeSessionHistoryMaxMessages);
          history = shaped.history;
          sessionHistory = { messages: history.length, omitted: shaped.omitted };
          details.session_history = sessionHistory;
        }
      }
      const body = { input: text, session_id: runSession, ...(history.length ? { conversation_history: history } : {}), ...(contract ? { instructions: contract } : {}) };
      const submit = () => api.createRun(body, withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`), idempotency);
      let run: { runId: string; replayed: boolean };
      try {
        run = await submit();
      } catch (e) {
        // The connection closed after the run was sent, so Hermes may have started it. Where Hermes
        // honours the key, the same body under the same key once more is answered with that run
        // (or starts it, if the first never arrived): never a second run. Elsewhere a retry could
        // start one, so the caller is told the outcome is unknown.
        if (!idempotency || !(e instanceof GatewayError) || e.details?.outcome !== 'unknown') throw e;
        run = await submit();
        details.resubmitted = true;
      }
      runId = run.runId;
      if (run.replayed) details.replayed = true;
      createdAt = new Date().toISOString();
      service.store.writeRun({ run_id: runId, session_id: runSession, bridge_session_id: sessionId, task_id: id, agent: agent.name, agent_base_url: agent.baseUrl, created_at: createdAt, task_sha256: fingerprint, ...(sessionHistory ? { session_history: sessionHistory } : {}), ...(run.replayed ? { replayed: true } : {}) });
    }
    const existing = service.store.readResult(id);
    const accepted: TaskResult = {
      id,
      status: 'accepted',
      summary: `run ${runId} accepted by agent ${agent.name}; follow it with hermes_status, read the outcome with hermes_result`,
      artifacts: [],
      next_steps: [`hermes_status {"run_id":"${runId}"}`, `hermes_result {"id":"${id}"}`],
      details: { ...details, run_id: runId, created_at: createdAt },
    };
    // A repeat of a run that already finished keeps its terminal result.
    if (!(existing && existing.details?.run_id === runId && existing.status !== 'accepted')) service.store.writeResult(accepted);
    return { ...publicResult(accepted), run_id: runId };
  });
}

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The conversation state an async task carries into POST /v1/runs: the session's user and
 * assistant text, in order, the newest `max` messages. Hermes'
 * _handle_runs keeps only `role` and `str(content)` of each conversation_history entry, so what it
 * cannot carry is left out rather than sent mangled: tool results (no tool_call_id: Hermes'
 * repair_message_sequence would drop them as strays), an assistant message's tool_calls (its
 * text, if any, stays), and messages with no text. Content is trimmed as Hermes'
 * get_messages_as_conversation trims it for a chat completion; multi-part content keeps its text parts.
 */
export function runHistory(messages: readonly SessionMessage[], max: number): { history: HistoryMessage[]; omitted: number } {
  const all: HistoryMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const content = textOf(m.content).trim();
    if (content) all.push({ role: m.role, content });
  }
  // No cut to a user turn: a session Hermes' compression continued starts with the summary, often
  // an assistant message, and a chat completion replays it as it is.
  const start = Math.max(0, all.length - max);
  return { history: all.slice(start), omitted: start };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** What makes two hermes_task calls under one id the same task (the agent is checked separately). */
export function taskFingerprint(args: TaskArgs): string {
  const task = { task: args.task, context: args.context ?? null, deliverable: args.deliverable ?? null, constraints: args.constraints ?? [], session: args.session ?? null };
  return createHash('sha256').update(JSON.stringify(task)).digest('hex');
}

export function publicResult(result: TaskResult): Record<string, unknown> {
  return { id: result.id, status: result.status, summary: result.summary, artifacts: result.artifacts, next_steps: result.next_steps };
}
