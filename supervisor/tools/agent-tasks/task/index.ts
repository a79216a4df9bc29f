import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { withKeyedLocks } from '../../../../shared/keyed-lock.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { profileOf } from '../base-url.js';
import { AGENT, ID } from '../schema.js';
import { readContract, resolveAgent, serviceOf, withDeadline, type BridgeService, type BridgeState } from '../service.js';
import { newTaskId } from '../tasks.js';
import { runAsync } from './async.js';
import { prompt, sessionIdFor, type TaskArgs } from './prompt.js';
import { runSync } from './sync.js';

// hermes_task: hand one whole task to a Hermes agent, waiting for the answer (sync.ts) or starting
// a run (async.ts). The agent is resolved (unknown_agent / agent_unavailable) and the id checked
// against the agent that already owns it (duplicate_id) before anything is sent upstream. Calls in
// one session run one at a time (Hermes appends each turn to the session's transcript; two at once
// would interleave).

export function hermesTaskTool(state: BridgeState): ToolDefinition {
  return {
    name: 'hermes_task',
    description:
      'Hand a whole task to a Hermes agent through its API server. mode "sync" waits for the answer and stores it as the task result; mode "async" starts a run and returns its run_id at once (follow it with hermes_status). Prefer hermes_result for the final answer and hermes_files for artifacts. `session` reuses one conversation across tasks; `agent` picks a registered agent (list_agents).',
    inputSchema: {
      type: 'object',
      properties: {
        task: { type: 'string', minLength: 1, description: 'What the agent should do.' },
        mode: { type: 'string', enum: ['sync', 'async'] },
        context: { type: 'string', description: 'Background the agent needs.' },
        deliverable: { type: 'string', description: 'What a finished task produces.' },
        constraints: { type: 'array', items: { type: 'string' }, maxItems: 20 },
        id: { ...ID, description: "Task id (generated when omitted); also the run's Idempotency-Key where the agent's Hermes honours one." },
        session: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$', description: 'Conversation to continue across tasks.' },
        agent: AGENT,
      },
      required: ['task', 'mode'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
    holdsLease: true,
    handler: async (args, ctx) => ({ structured: await runTask(serviceOf(state), args as unknown as TaskArgs, ctx.signal) }),
  };
}

async function runTask(service: BridgeService, args: TaskArgs, signal: AbortSignal): Promise<Record<string, unknown>> {
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
    const hermesSession = service.store.hermesSessionOf(sessionId);
    const details: Record<string, unknown> = { agent: agent.name, mode: args.mode, session_id: hermesSession };
    const call = { service, resolved, args, id, sessionId, hermesSession, contract, text: prompt(args, id, dir), dir, details, signal };
    return args.mode === 'sync' ? runSync(call) : runAsync(call);
  });
}
