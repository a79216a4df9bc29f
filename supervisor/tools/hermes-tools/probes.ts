import type { ProbeResult } from '../../platform/health/readiness.js';
import { served, whyNot, WEB_TOOLS, type ToolServerStartup } from './listing.js';
import type { ManagedOverlay } from './managed-overlay.js';
import type { HermesToolsWorker } from './tools.js';
import { webNotOffered, webProbe, type WebCheck } from './web-readiness.js';

// /readyz `hermes_tools` (the tool server itself: up and answering a ping, or restarting with its
// backoff and last failure, or not installed) and `web_provider` (the web smoke calls' verdict).

/** Below Readiness' own 5 s probe timeout, so the reason is this adapter's, not a generic timeout. */
const PROBE_BOUND_MS = 3000;
const PING_TIMEOUT_MS = 2000;

export async function toolServerProbe(startup: ToolServerStartup, managed: ManagedOverlay, worker: HermesToolsWorker): Promise<ProbeResult> {
  if (startup.kind === 'pending') return { ready: false, status: 'starting', reason: "Hermes' tool server has not listed its tools yet" };
  const optional = 'or set HERMES_MCP_OPTIONAL_COMPONENTS=hermes_tools,web_provider to run without the web, vision, image and video tools';
  if (startup.kind === 'unavailable') {
    const action = startup.status === 'not_installed'
      ? `install Hermes (its installer puts the source and venv under $HERMES_HOME/hermes-agent), or point HERMES_AGENT_SRC / HERMES_AGENT_PYTHON or HERMES_MCP_HERMES_TOOLS_COMMAND at it, then restart the gateway; ${optional}`
      : `fix the tool server failure named in the reason and restart the gateway (the catalog is fixed at startup); ${optional}`;
    return { ready: false, status: startup.status, reason: startup.reason, action };
  }
  const details = {
    tools: startup.served,
    missing: startup.missing,
    ...(Object.keys(startup.unusable).length > 0 ? { unusable: startup.unusable } : {}),
    ...(startup.server ? { server: startup.server } : {}),
    ...(managed.dir ? { managed_dir: managed.dir } : {}),
    ...(managed.admin ? { admin_managed_dir: managed.admin } : {}),
    ...(managed.warnings.length > 0 ? { managed_warnings: managed.warnings } : {}),
  };
  const reply = await worker.request({ type: 'status', pingTimeoutMs: PING_TIMEOUT_MS }, PROBE_BOUND_MS, 'spare-busy');
  if (!('status' in reply)) return { ready: false, status: 'error', reason: reply.failure.message, details };
  const { status } = reply;
  const facts = { ...details, state: status.state, restarts: status.restarts, ...(status.lastFailure ? { last_failure: status.lastFailure } : {}), ...(status.busy ? { busy: { tool: status.busy.tool, for_ms: status.busy.forMs } } : {}) };
  if (status.state === 'up' && (status.answersPing || status.busy)) {
    // A tool Hermes does not offer is reported, not required: Hermes' tool server has no video_analyze, for one.
    if (startup.missing.length > 0) return { ready: true, status: 'degraded', reason: `Hermes' tool server does not offer ${startup.missing.join(', ')}`, details: facts };
    return { ready: true, status: 'ok', details: facts };
  }
  if (status.state === 'up') return { ready: false, status: 'error', reason: `Hermes' tool server did not answer a ping within ${PING_TIMEOUT_MS} ms`, details: facts };
  const next = status.nextAttemptInMs !== undefined ? `; next attempt in ${Math.ceil(status.nextAttemptInMs / 1000)} s` : '';
  return { ready: false, status: status.state, reason: `Hermes' tool server is ${status.state}${status.lastFailure ? ` after ${status.lastFailure}` : ''}${next}`, action: 'it is restarted with backoff; see last_failure', details: { ...facts, ...(status.nextAttemptInMs !== undefined ? { next_attempt_in_ms: status.nextAttemptInMs } : {}) } };
}

export function webProviderProbe(startup: ToolServerStartup, web: WebCheck[] | undefined): ProbeResult {
  if (startup.kind === 'pending') return { ready: false, status: 'starting', reason: "Hermes' tool server has not listed its tools yet" };
  if (startup.kind === 'unavailable') return { ready: false, status: 'unavailable', reason: `${whyNot(startup, 'web_search')} (see hermes_tools)`, action: 'see hermes_tools' };
  const missing = WEB_TOOLS.filter((n) => !served(startup, n));
  if (missing.length > 0) return webNotOffered(missing);
  if (!web) return { ready: false, status: 'starting', reason: 'the web_search and web_extract smoke calls are running' };
  return webProbe(web);
}
