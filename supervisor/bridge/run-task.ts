import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { withKeyedLocks } from '../keyed-lock.js';
import { resultFromReply } from './reply.js';
import { readContract, resolveAgent, withDeadline, type BridgeService } from './service.js';
import { newTaskId, type TaskResult } from './tasks.js';

// hermes_task: hand one whole task to a Hermes agent.
//   sync  -> POST /v1/chat/completions (X-Hermes-Session-Id), wait, persist result.json
//   async -> POST /v1/runs (session_id, Idempotency-Key: <id>), write run.json at once, answer accepted
// The agent is resolved (unknown_agent / agent_unavailable) and the id checked against the agent
// that already owns it (duplicate_id) before anything is sent upstream. Calls in one session run
// one at a time (Hermes appends each turn to the session's transcript; two at once would interleave).

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

export async function runTask(service: BridgeService, args: TaskArgs, signal: AbortSignal): Promise<Record<string, unknown>> {
  const { agent, api } = resolveAgent(service, args.agent);
  const id = args.id ?? newTaskId();
  const sessionId = sessionIdFor(agent.name, id, args.session);
  const contract = readContract(service);
  return withKeyedLocks([`bridge-task:${id}`, `bridge-session:${sessionId}`], async () => {
    const owner = service.store.existingTaskDir(id) ? service.store.ownerOf(id) : undefined;
    if (owner !== undefined && owner !== agent.name) {
      throw new GatewayError(ErrorCode.DUPLICATE_ID, `task id ${id} belongs to agent ${owner}; choose another id`, { owner_agent: owner });
    }
    const dir = service.store.ensureTaskDir(id);
    const text = prompt(args, id, dir);
    const details = { agent: agent.name, mode: args.mode, session_id: sessionId };
    if (args.mode === 'sync') {
      const timed = withDeadline(signal, service.limits.bridgeSyncTimeoutSeconds, `agent ${agent.name}`);
      const messages = [...(contract ? [{ role: 'system', content: contract }] : []), { role: 'user', content: text }];
      let reply;
      try {
        reply = await api.chat(messages, sessionId, timed);
      } catch (e) {
        if (e instanceof GatewayError && e.code === ErrorCode.TASK_TIMEOUT) {
          const summary = `${e.message}; the agent may still be working. Use mode "async" for long tasks.`;
          service.store.writeResult({ id, status: 'interrupted', summary, artifacts: [], next_steps: [], details: { ...details, finished_at: new Date().toISOString() } });
          throw new GatewayError(ErrorCode.TASK_TIMEOUT, summary, { id });
        }
        throw e;
      }
      const result = resultFromReply(id, reply.content, dir, { ...details, model: reply.model, usage: reply.usage, finished_at: new Date().toISOString() });
      service.store.writeResult(result);
      return publicResult(result);
    }
    const timed = withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`);
    const { runId } = await api.createRun({ input: text, session_id: sessionId, ...(contract ? { instructions: contract } : {}) }, id, timed);
    const createdAt = new Date().toISOString();
    service.store.writeRun({ run_id: runId, session_id: sessionId, task_id: id, agent: agent.name, agent_base_url: agent.baseUrl, created_at: createdAt });
    const existing = service.store.readResult(id);
    const accepted: TaskResult = {
      id,
      status: 'accepted',
      summary: `run ${runId} accepted by agent ${agent.name}; follow it with hermes_status, read the outcome with hermes_result`,
      artifacts: [],
      next_steps: [`hermes_status {"run_id":"${runId}"}`, `hermes_result {"id":"${id}"}`],
      details: { ...details, run_id: runId, created_at: createdAt },
    };
    // An idempotent replay of a run that already finished keeps its terminal result.
    if (!(existing && existing.details?.run_id === runId && existing.status !== 'accepted')) service.store.writeResult(accepted);
    return { ...publicResult(accepted), run_id: runId };
  });
}

export function publicResult(result: TaskResult): Record<string, unknown> {
  return { id: result.id, status: result.status, summary: result.summary, artifacts: result.artifacts, next_steps: result.next_steps };
}
