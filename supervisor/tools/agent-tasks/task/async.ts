import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { publicResult } from '../reply.js';
import { agentRelease, capabilitiesOf, withDeadline } from '../service.js';
import type { RunRecord, TaskResult } from '../tasks.js';
import type { TaskCall } from './call.js';
import { runHistory, type HistoryMessage } from './history.js';
import { taskFingerprint } from './prompt.js';

// An async task: POST /v1/runs (session_id; Idempotency-Key: <id> where the agent's capabilities
// say Hermes honours it), write run.json at once, answer accepted; a repeat of the id is the
// recorded run (the same task) or duplicate_id (another task). In a bridge session the run also
// carries the session's stored turns as conversation_history (GET /api/sessions/{id}/messages)
// where Hermes' /v1/runs does not load them itself, as its chat completion does (0.19; runHistory).
// The run is followed when hermes_status first sees it terminal (status/): its status keeps the
// session id it was given, so the bridge asks Hermes' session API where that session went.

export async function runAsync(call: TaskCall): Promise<Record<string, unknown>> {
  const { service, id, details } = call;
  const { agent } = call.resolved;
  // A repeat of a task id that already has a run is answered here, from run.json, without reaching
  // the agent: Hermes 0.19 and v0.20 start a new run for every POST /v1/runs, and Hermes that
  // honours Idempotency-Key forgets a key after its retention window.
  const fingerprint = taskFingerprint(call.args);
  const recorded = service.store.readRun(id);
  if (recorded && recorded.task_sha256 !== undefined && recorded.task_sha256 !== fingerprint) {
    throw new GatewayError(ErrorCode.DUPLICATE_ID, `task id ${id} was already submitted as run ${recorded.run_id} with a different task; choose another id (hermes_status ${recorded.run_id} follows the first one)`, { run_id: recorded.run_id });
  }
  const { runId, createdAt } = recorded ? { runId: recorded.run_id, createdAt: recorded.created_at } : await submitRun(call, fingerprint);
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
}

/** Starts the run on the agent and records it in run.json. */
async function submitRun(call: TaskCall, fingerprint: string): Promise<{ runId: string; createdAt: string }> {
  const { service, id, details, signal } = call;
  const { agent, api } = call.resolved;
  const capabilities = await capabilitiesOf(service, call.resolved, signal);
  const idempotency = capabilities.runIdempotency ? { key: id, agent: agent.name, retentionSeconds: capabilities.runIdempotency.retentionSeconds } : undefined;
  // Hermes 0.19's /v1/runs loads no session history itself (its _handle_runs builds the history
  // only from the body), so a task in a bridge session sends the session's stored turns along.
  // Later Hermes loads them itself when none are sent (tool traffic and the hidden summary its
  // compression writes included, which its session API does not show), from the session's
  // live tip: there the bridge sends none.
  const hermesLoadsHistory = agentRelease(service, capabilities).has('runs_load_session_history');
  const { runSession, history, sessionHistory } = call.args.session && !hermesLoadsHistory ? await sessionTurns(call) : { runSession: call.hermesSession, history: [], sessionHistory: undefined };
  const body = { input: call.text, session_id: runSession, ...(history.length ? { conversation_history: history } : {}), ...(call.contract ? { instructions: call.contract } : {}) };
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
  if (run.replayed) details.replayed = true;
  const createdAt = new Date().toISOString();
  service.store.writeRun({ run_id: run.runId, session_id: runSession, bridge_session_id: call.sessionId, task_id: id, agent: agent.name, agent_base_url: agent.baseUrl, created_at: createdAt, task_sha256: fingerprint, ...(sessionHistory ? { session_history: sessionHistory } : {}), ...(run.replayed ? { replayed: true } : {}) });
  return { runId: run.runId, createdAt };
}

/** The session's stored turns for a run in a bridge session, and the session the run goes to. */
async function sessionTurns(call: TaskCall): Promise<{ runSession: string; history: HistoryMessage[]; sessionHistory: RunRecord['session_history'] }> {
  const { service, id, details, hermesSession } = call;
  const { agent, api } = call.resolved;
  const loaded = await api.sessionMessages(hermesSession, withDeadline(call.signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`));
  if (!loaded) return { runSession: hermesSession, history: [], sessionHistory: undefined };
  let runSession = hermesSession;
  // A rotation not followed yet (an async run that compressed, its status not polled since):
  // Hermes resolved the id to the session continuing it, so the run goes there too.
  const rotatedTo = service.store.followRotation(call.sessionId, hermesSession, loaded.sessionId, id);
  if (rotatedTo) {
    runSession = rotatedTo;
    details.session_id = rotatedTo;
    details.session_rotated_from = hermesSession;
  }
  const shaped = runHistory(loaded.messages, service.limits.bridgeSessionHistoryMaxMessages);
  const sessionHistory = { messages: shaped.history.length, omitted: shaped.omitted };
  details.session_history = sessionHistory;
  return { runSession, history: shaped.history, sessionHistory };
}
