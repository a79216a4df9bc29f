import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { readTaskPath } from './files.js';
import { HermesApi } from './hermes-api.js';
import { runCancel } from './run-cancel.js';
import { publicResult, runTask, type TaskArgs } from './run-task.js';
import { runStatus } from './run-status.js';
import type { BridgeService } from './service.js';
import { TASK_ID } from './tasks.js';

// The five hermes-mcp-bridge tools, with that bridge's names, arguments and result shapes, and the
// gateway's own sixth, hermes_cancel (catalog only: the drop-in bridge profile serves exactly the
// five its clients know). They are always catalogued (the frozen catalog does not depend on
// configuration); without a configured bridge every call answers BRIDGE_NOT_CONFIGURED saying what
// to set.

export type BridgeState = { kind: 'configured'; service: BridgeService } | { kind: 'not_configured' | 'invalid'; reason: string };

const ID = { type: 'string', pattern: TASK_ID.source } as const;
// No pattern: a name that is not registered (whatever its spelling) is refused by resolveAgent
// as unknown_agent, naming the registered agents, before any upstream call.
const AGENT = { type: 'string', maxLength: 64, description: 'A registered agent (list_agents); default: the registry default.' } as const;
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

function serviceOf(state: BridgeState): BridgeService {
  if (state.kind === 'configured') return state.service;
  throw new GatewayError(ErrorCode.BRIDGE_NOT_CONFIGURED, state.reason);
}

async function listAgents(service: BridgeService, signal: AbortSignal): Promise<Record<string, unknown>> {
  const view = service.registry.current();
  const probeSignal = AbortSignal.any([signal, AbortSignal.timeout(service.limits.bridgeProbeTimeoutSeconds * 1000)]);
  const agents = await Promise.all(
    view.agents.map(async (agent) => {
      const key = service.registry.keyOf(agent);
      // Reachability, the key and the profile are probed (GET /health, GET /v1/models) only for agents that could be used at all.
      const problem = 'key' in key ? await new HermesApi(agent.baseUrl, key.key, 65_536).probe(probeSignal) : undefined;
      const reason = 'key' in key ? problem?.reason : key.reason;
      return {
        name: agent.name,
        description: agent.description,
        capabilities: agent.capabilities,
        kind: agent.kind,
        available: reason === undefined,
        ...(reason ? { unavailable_reason: reason } : {}),
        // What to do about a refused key or an unserved profile (never a key).
        ...(problem && problem.reason !== 'unreachable' ? { hint: problem.message } : {}),
        default: agent.name === view.defaultName,
        ...(agent.profile ? { local_profile: agent.profile } : {}),
      };
    }),
  );
  return { agents, default: view.defaultName, count: agents.length, ...(view.degraded ? { degraded: view.degraded } : {}), ...(view.error ? { registry_error: view.error } : {}) };
}

export function bridgeTools(state: BridgeState): ToolDefinition[] {
  const hermesTask: ToolDefinition = {
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
  const hermesStatus: ToolDefinition = {
    name: 'hermes_status',
    description:
      'Status of an async hermes_task run: queued, running, waiting_for_approval, stopping, or a terminal state (completed, failed, cancelled, interrupted) with output or error, timestamps, agent and task_id. A terminal state is also written to the task result (result_updated).',
    inputSchema: { type: 'object', properties: { run_id: ID, agent: AGENT }, required: ['run_id'], additionalProperties: false },
    annotations: READ_ONLY,
    handler: async (args, ctx) => ({ structured: await runStatus(serviceOf(state), args.run_id as string, args.agent as string | undefined, ctx.signal) }),
  };
  const listAgentsTool: ToolDefinition = {
    name: 'list_agents',
    description: 'The Hermes agents tasks can go to: name, description, capabilities, kind, availability and which is the default. Never returns credentials.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: READ_ONLY,
    handler: async (_args, ctx) => ({ structured: await listAgents(serviceOf(state), ctx.signal) }),
  };
  const hermesResult: ToolDefinition = {
    name: 'hermes_result',
    description: "A task's durable result (its result.json): {id, status, summary, artifacts, next_steps, details?}. The source of truth after a run has left the agent API.",
    inputSchema: { type: 'object', properties: { id: ID }, required: ['id'], additionalProperties: false },
    annotations: READ_ONLY,
    handler: async (args) => {
      const service = serviceOf(state);
      const id = args.id as string;
      if (!service.store.existingTaskDir(id)) throw new GatewayError(ErrorCode.TASK_NOT_FOUND, `no task ${id}`);
      const result = service.store.readResult(id);
      if (!result) throw new GatewayError(ErrorCode.RESULT_NOT_FOUND, `task ${id} has no result yet`);
      return { structured: { ...publicResult({ ...result, id }), ...(result.details ? { details: result.details } : {}) } };
    },
  };
  const hermesFiles: ToolDefinition = {
    name: 'hermes_files',
    description:
      "Read-only access to a task's directory: without `path` (or for a directory) a listing {entries, count, truncated}; for a file its UTF-8 text {size, mtime, encoding, content} up to the file cap. Paths are relative; .., absolute paths, backslashes and symlinks are refused.",
    inputSchema: {
      type: 'object',
      properties: { id: ID, path: { type: 'string', maxLength: 4096, description: 'Relative path inside the task directory (default: the directory itself).' } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    handler: async (args) => {
      const service = serviceOf(state);
      const id = args.id as string;
      const limits = { maxBytes: service.limits.bridgeFileMaxBytes, maxEntries: service.limits.bridgeListMaxEntries };
      const answer = readTaskPath(service.store.taskDir(id), id, (args.path as string | undefined) ?? '', limits);
      // Every result is redacted on its way out (normalizeResult); say so when that changes the
      // file's text, so a reader never takes the masked copy for the file itself.
      if (typeof answer.content === 'string' && redact(answer.content) !== answer.content) answer.redacted = true;
      return { structured: answer };
    },
  };
  return [hermesTask, hermesStatus, listAgentsTool, hermesResult, hermesFiles];
}

/**
 * The gateway's agent-task tools beyond the bridge's five: hermes_cancel. Served through the
 * gateway's catalog (policy, scopes: a mutating tool needs hermes:full), never on the bridge
 * profile, whose clients and bridge:smoke expect exactly five tools.
 */
export function gatewayAgentTools(state: BridgeState): ToolDefinition[] {
  const hermesCancel: ToolDefinition = {
    name: 'hermes_cancel',
    description:
      'Stop an async run that hermes_task started through this gateway (Hermes interrupts its agent; the run settles "cancelled", which hermes_status and hermes_result then show). Answers the run\'s status like hermes_status, with `stop`: "requested", or "not_running" when the run had already ended (nothing is changed then). RUN_NOT_FOUND for a run no task here recorded; RUN_STOP_UNSUPPORTED when the agent\'s Hermes cannot stop runs.',
    inputSchema: { type: 'object', properties: { run_id: ID, agent: AGENT }, required: ['run_id'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: true },
    handler: async (args, ctx) => ({ structured: await runCancel(serviceOf(state), args.run_id as string, args.agent as string | undefined, ctx.signal) }),
  };
  return [hermesCancel];
}
