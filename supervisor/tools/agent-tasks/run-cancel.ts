import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { runAgent, runStatus } from './run-status.js';
import { capabilitiesOf, withDeadline, type BridgeService } from './service.js';

// hermes_cancel: stop an async run (POST /v1/runs/{run_id}/stop on the agent that accepted it, as
// hermes_status finds it). A gateway tool beside the five of hermes-mcp-bridge; the drop-in bridge
// profile keeps exactly those five. Hermes interrupts the run's agent and answers `stopping`; the
// run then settles `cancelled`, which hermes_status (called here once, and by the caller after)
// writes to the task's result.json like any terminal state. A run that is not running any more
// (finished, or unknown to the stop route: 0.19 only knows active runs) is left alone and its status
// answered. Where the agent's capabilities say Hermes has no stop route, RUN_STOP_UNSUPPORTED.

export async function runCancel(service: BridgeService, runId: string, agentName: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
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
