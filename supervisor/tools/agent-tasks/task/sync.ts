import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { publicResult, resultFromReply } from '../reply.js';
import { withDeadline, type BridgeService } from '../service.js';
import type { TaskResult } from '../tasks.js';
import type { TaskCall } from './call.js';

// A sync task: POST /v1/chat/completions (X-Hermes-Session-Id), wait, persist result.json. A chat
// completion whose X-Hermes-Session-Id names another session (Hermes' context compression ended the
// one sent and continues in a new one) is recorded in the task store, and every later call in that
// bridge session sends the new id.

export async function runSync(call: TaskCall): Promise<Record<string, unknown>> {
  const { service, id, details, resolved } = call;
  const { agent, api } = resolved;
  const timed = withDeadline(call.signal, service.limits.bridgeSyncTimeoutSeconds, `agent ${agent.name}`);
  const messages = [...(call.contract ? [{ role: 'system', content: call.contract }] : []), { role: 'user', content: call.text }];
  let reply;
  try {
    reply = await api.chat(messages, call.hermesSession, timed);
  } catch (e) {
    throw recordSyncFailure(service, id, details, e);
  }
  const rotatedTo = service.store.followRotation(call.sessionId, call.hermesSession, reply.sessionId, id);
  const finished = {
    ...details,
    ...(rotatedTo ? { session_id: rotatedTo, session_rotated_from: call.hermesSession } : {}),
    model: reply.model,
    usage: reply.usage,
    ...(reply.finishReason && reply.finishReason !== 'stop' ? { finish_reason: reply.finishReason } : {}),
    finished_at: new Date().toISOString(),
  };
  const result: TaskResult =
    reply.finishReason === 'error'
      ? // Hermes ends a chat completion whose agent run failed with finish_reason "error"; its text says why.
        { id, status: 'failed', summary: `the agent reported an error: ${reply.content.slice(0, 2000)}`, artifacts: [], next_steps: [], details: { ...finished, error: 'agent_error' } }
      : resultFromReply(id, reply.content, call.dir, finished);
  service.store.writeResult(result);
  return publicResult(result);
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
