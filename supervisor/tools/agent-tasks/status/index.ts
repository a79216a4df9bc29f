import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { HermesApi } from '../hermes-api.js';
import { resultFromReply } from '../reply.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { AGENT, ID, READ_ONLY } from '../schema.js';
import { resolveAgent, serviceOf, withDeadline, type BridgeService, type BridgeState, type ResolvedAgent } from '../service.js';
import { TERMINAL, type RunRecord, type TaskResult } from '../tasks.js';

// hermes_status: GET /v1/runs/{run_id} on the agent that accepted the run (run.json says which;
// without one, the `agent` argument or the default agent). Hermes' own states pass through; the
// terminal ones (completed, failed, cancelled) are written to the task's result.json the first
// time they are seen (`result_updated: true`). A run the API no longer knows but run.json does has
// left the API without a result (restart, retention): it is `interrupted`, recorded the same way.
// Hermes itself may answer `interrupted` too (newer Hermes keeps an idempotency-keyed run's status
// across its restart and shutdown, with the reason in `error`): its reason is then the summary.
// When a run settles, the bridge also learns whether Hermes rotated its session (followRun).

/** What following a finished run's session found: the session it rotated to, or why that is not known yet. */
interface SessionFollow {
  rotatedTo?: string;
  error?: string;
}

/** `reported`: Hermes answered the status; false when the API no longer knows the run. */
function resultOf(service: BridgeService, record: RunRecord, status: string, reported: boolean, output: string | undefined, error: string | undefined, follow: SessionFollow): TaskResult {
  const details = {
    agent: record.agent,
    mode: 'async',
    session_id: follow.rotatedTo ?? record.session_id,
    ...(follow.rotatedTo ? { session_rotated_from: record.session_id } : {}),
    // Asked again on the next hermes_status: until then the bridge session still sends the old id.
    ...(follow.error ? { session_follow_pending: true, session_follow_error: follow.error } : {}),
    ...(record.session_history ? { session_history: record.session_history } : {}),
    run_id: record.run_id,
    created_at: record.created_at,
    finished_at: new Date().toISOString(),
  };
  const dir = service.store.taskDir(record.task_id);
  if (status === 'completed') return resultFromReply(record.task_id, output ?? '', dir, details);
  const summary =
    status === 'failed'
      ? `the run failed: ${error ?? 'no error given'}`
      : status === 'cancelled'
        ? `the run was cancelled${error ? `: ${error}` : ''}`
        : reported
          ? `the run was interrupted: ${error ?? 'Hermes gave no reason'}`
          : 'the run left the agent API before a result was recorded (agent restart or retention expiry)';
  return { id: record.task_id, status, summary, artifacts: [], next_steps: [], details: { ...details, ...(error ? { error } : {}) } };
}

/**
 * A timestamp as ISO 8601, whatever its source: Hermes sends Unix seconds (a float), run.json holds
 * ISO text, and a number large enough to be milliseconds is read as such. Anything else is null.
 */
export function isoTimestamp(value: unknown): string | null {
  let ms: number;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()))) {
    const n = Number(value);
    ms = n >= 1e12 ? n : n * 1000;
  } else if (typeof value === 'string' && value.trim() !== '') {
    ms = Date.parse(value);
  } else return null;
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * A finished run may have rotated its session (Hermes' compression ends it and continues in a
 * child), and its status does not say so: ask Hermes' session API, and record a move as a sync
 * task's X-Hermes-Session-Id is recorded (TaskStore.followRotation). Nothing is asked once the
 * bridge session continues another session than the run was sent (a later rotation moved it on),
 * nor for a run.json without bridge_session_id (written before the bridge recorded it).
 */
async function followRun(service: BridgeService, api: HermesApi, record: RunRecord, signal: AbortSignal): Promise<SessionFollow> {
  const bridgeSession = record.bridge_session_id;
  if (bridgeSession === undefined || service.store.hermesSessionOf(bridgeSession) !== record.session_id) return {};
  try {
    const continuation = await api.sessionContinuation(record.session_id, withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${record.agent}`));
    const rotatedTo = service.store.followRotation(bridgeSession, record.session_id, continuation, record.task_id);
    return rotatedTo ? { rotatedTo } : {};
  } catch (e) {
    return { error: e instanceof GatewayError ? `${e.code}: ${e.message}` : String(e) };
  }
}

/** The agent a recorded run went to: gone from the registry is its own answer, not unknown_agent. */
export function recordedAgent(service: BridgeService, record: RunRecord): ResolvedAgent {
  if (!service.registry.find(record.agent)) {
    throw new GatewayError(
      ErrorCode.AGENT_UNAVAILABLE,
      `run ${record.run_id} (task ${record.task_id}) was accepted by agent ${record.agent}, which is no longer in the agent registry; restore that entry to follow the run (hermes_result ${record.task_id} keeps what was recorded)`,
      { unavailable_reason: 'not_registered', run_id: record.run_id, task_id: record.task_id, agent: record.agent },
    );
  }
  return resolveAgent(service, record.agent);
}

/** The run's record (run.json, if any) and the agent that has it: run.json's, else `agentName` or the default. */
export function runAgent(service: BridgeService, runId: string, agentName: string | undefined): { record: RunRecord | undefined } & ResolvedAgent {
  const record = service.store.findRun(runId);
  if (record && agentName !== undefined && agentName !== record.agent) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `run ${runId} belongs to agent ${record.agent}, not ${agentName}`);
  }
  return { record, ...(record ? recordedAgent(service, record) : resolveAgent(service, agentName)) };
}

export async function runStatus(service: BridgeService, runId: string, agentName: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
  const { record, agent, api } = runAgent(service, runId, agentName);
  const run = await api.getRun(runId, withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`));
  if (!run && !record) throw new GatewayError(ErrorCode.RUN_NOT_FOUND, `agent ${agent.name} knows no run ${runId}, and no task recorded it`);
  const status = run?.status ?? 'interrupted';
  const output = typeof run?.output === 'string' ? run.output : undefined;
  const error = typeof run?.error === 'string' ? run.error : run?.error !== undefined && run?.error !== null ? JSON.stringify(run.error) : undefined;
  let resultUpdated: boolean | undefined;
  let session = run?.session_id ?? record?.session_id;
  let rotatedFrom: string | undefined;
  if (record && TERMINAL.has(status)) {
    const current = service.store.readResult(record.task_id);
    const settled = current && current.details?.run_id === runId && TERMINAL.has(current.status) ? current : undefined;
    // A result already settled for this run stays as it is (an interrupted run read again, a second
    // poll), unless its session could not be followed then.
    if (!settled || settled.details?.session_follow_pending === true) {
      const result = resultOf(service, record, status, run !== undefined, output, error, await followRun(service, api, record, signal));
      service.store.writeResult(result);
      resultUpdated = true;
      session = String(result.details?.session_id);
      const from = result.details?.session_rotated_from;
      if (typeof from === 'string') rotatedFrom = from;
    } else {
      resultUpdated = false;
      if (typeof settled.details?.session_rotated_from === 'string') {
        session = String(settled.details.session_id);
        rotatedFrom = settled.details.session_rotated_from;
      }
    }
  }
  return {
    run_id: runId,
    status,
    output: output ?? null,
    error: error ?? null,
    created_at: isoTimestamp(run?.created_at) ?? isoTimestamp(record?.created_at),
    updated_at: isoTimestamp(run?.updated_at),
    agent: agent.name,
    task_id: record?.task_id ?? null,
    session_id: session ?? null,
    ...(rotatedFrom ? { session_rotated_from: rotatedFrom } : {}),
    terminal: TERMINAL.has(status),
    ...(resultUpdated !== undefined ? { result_updated: resultUpdated } : {}),
  };
}

export function hermesStatusTool(state: BridgeState): ToolDefinition {
  return {
    name: 'hermes_status',
    description:
      'Status of an async hermes_task run: queued, running, waiting_for_approval, stopping, or a terminal state (completed, failed, cancelled, interrupted) with output or error, timestamps, agent and task_id. A terminal state is also written to the task result (result_updated).',
    inputSchema: { type: 'object', properties: { run_id: ID, agent: AGENT }, required: ['run_id'], additionalProperties: false },
    annotations: READ_ONLY,
    handler: async (args, ctx) => ({ structured: await runStatus(serviceOf(state), args.run_id as string, args.agent as string | undefined, ctx.signal) }),
  };
}
