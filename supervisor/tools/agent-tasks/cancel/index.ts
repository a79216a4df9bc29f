import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { AGENT, ID } from '../schema.js';
import { capabilitiesOf, serviceOf, withDeadline, type BridgeService, type BridgeState } from '../service.js';
import { runAgent, runStatus } from '../status/index.js';

// hermes_cancel: stop an async run (POST /v1/runs/{run_id}/stop on the agent that accepted it, as
// hermes_status finds it). A gateway tool beside the five of hermes-mcp-bridge; the drop-in bridge
// profile keeps exactly those five. Hermes interrupts the run's agent and answers `stopping`; the
// run then settles `cancelled`, which hermes_status (called here once, and by the caller after)
// writes to the task's result.json like any terminal state. A run that is not running any more
// (finished, or unknown to the stop route: 0.19 only knows active runs) is left alone and its status
// answered. Where the agent's capabilities say Hermes has no stop route, RUN_STOP_UNSUPPORTED.
//
// Only runs this gateway started (a task's run.json records the id) are stopped: Hermes scopes runs
// by its API key, not by who sent them, so the gateway's key could otherwise stop a run another
// client of that API server (Hermes' own UI, another bridge) started. Any other id is RUN_NOT_FOUND
// before anything is sent; hermes_status still reads such a run.

async function runCancel(service: BridgeService, runId: string, agentName: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
  if (!service.store.findRun(runId)) {
    throw new GatewayError(ErrorCode.RUN_NOT_FOUND, `no task of this gateway recorded run ${runId}: hermes_cancel stops only runs hermes_task started here (hermes_status still reads any run the agent knows)`, { run_id: runId });
  }
  const resolved = runAgent(service, runId, agentName);
  const { agent, api } = resolved;
  const unsupported = () =>
    new GatewayError(ErrorCode.RUN_STOP_UNSUPPORTED, `agent ${agent.name}: its Hermes API server offers no run stop (POST /v1/runs/{run_id}/stop); the run goes on until it ends`, { agent: agent.name, run_id: runId });
  const capabilities = await capabilitiesOf(service, resolved, signal);
  if (capabilities.runStop === false) throw unsupported();
  const stop = await api.stopRun(runId, withDeadline(signal, service.limits.bridgeRequestTimeoutSeconds, `agent ${agent.name}`));
  if (stop.kind === 'no_route') {
    // What the capabilities said (or did not say) was not what the server does: ask again next time.
    service.capabilities.forget(api.identity);
    throw unsupported();
  }
  const status = await runStatus(service, runId, agentName, signal);
  return { ...status, stop: stop.kind === 'stopping' ? 'requested' : 'not_running' };
}

export function hermesCancelTool(state: BridgeState): ToolDefinition {
  return {
    name: 'hermes_cancel',
    description:
      'Stop an async run that hermes_task started through this gateway (Hermes interrupts its agent; the run settles "cancelled", which hermes_status and hermes_result then show). Answers the run\'s status like hermes_status, with `stop`: "requested", or "not_running" when the run had already ended (nothing is changed then). RUN_NOT_FOUND for a run no task here recorded; RUN_STOP_UNSUPPORTED when the agent\'s Hermes cannot stop runs.',
    inputSchema: { type: 'object', properties: { run_id: ID, agent: AGENT }, required: ['run_id'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: true },
    handler: async (args, ctx) => ({ structured: await runCancel(serviceOf(state), args.run_id as string, args.agent as string | undefined, ctx.signal) }),
  };
}
