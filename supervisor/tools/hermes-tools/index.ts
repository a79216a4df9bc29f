import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { VisionAnalyzer } from '../browser/vision.js';
import { loadToolPolicy, type ToolPolicy } from '../../core/catalog/policy.js';
import type { GatewayConfig } from '../../platform/config.js';
import { hermesEnvironment, hermesInheritance } from '../../platform/hermes/environment.js';
import { HERMES_TOOLS_MODULE, hermesPython, type HermesInstall } from '../../platform/hermes/locate.js';
import type { ProbeResult } from '../../platform/health/readiness.js';
import { commandExists } from '../../platform/spawning/command-exists.js';
import { WORKER_SLACK_MS } from '../../platform/spawning/resident-worker.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { HermesToolServerInfo } from '../../../shared/worker-protocol/hermes-tools.js';
import { HermesToolsWorker, toolServerCall, toolServerTool } from './tools.js';
import { writeToolServerOverlay, type ManagedOverlay } from './managed-overlay.js';
import { managedScopeDir } from '../../platform/hermes/managed-scope.js';
import { toolServerVision } from './vision.js';
import { smokeWeb, webNotOffered, webProbe, type WebCheck } from './web-readiness.js';

// The Hermes tools adapter: the allowlisted tools only Hermes implements (web, vision, image,
// video), served by Hermes' own stdio MCP tool server in the Hermes tools worker — never a second
// web or vision stack, never a schema written here. At startup the tool server is asked for its
// tools once; the allowlisted ones it offers are catalogued with its schemas (under the catalog's
// `hermes` source, beside the skills), the ones it does not offer are reported missing, never
// invented. Then, in the background, one real web_search and one real web_extract decide
// /readyz `web_provider` (web-readiness.ts). /readyz `hermes_tools` is the tool server itself:
// up and answering a ping, or restarting (with its backoff and last failure), or not installed.

/** The allowlisted tools whose only implementation is Hermes' (the others run natively here: files, terminal, execute_code, skills, browser). */
export const TOOL_SERVER_TOOLS = ['web_search', 'web_extract', 'vision_analyze', 'image_generate', 'video_analyze'] as const;
const WEB_TOOLS = ['web_search', 'web_extract'];

/** Below Readiness' own 5 s probe timeout, so the reason is this adapter's, not a generic timeout. */
const PROBE_BOUND_MS = 3000;
const PING_TIMEOUT_MS = 2000;

/**
 * What the startup found: nothing yet, no tool server, or the one it listed — its MCP serverInfo,
 * every tool name it listed, and of the allowlisted ones those catalogued (`served`), those it
 * does not offer (`missing`) and those whose schema cannot be served (`unusable`).
 */
export type ToolServerStartup =
  | { kind: 'pending' }
  | { kind: 'unavailable'; status: 'not_installed' | 'error'; reason: string }
  | { kind: 'listed'; server?: HermesToolServerInfo; listed: string[]; served: string[]; missing: string[]; unusable: Record<string, string> };

export interface HermesToolsAdapter extends Adapter {
  worker: HermesToolsWorker;
  /** What the startup found (doctor's hermes_agent check reports it). */
  startup(): ToolServerStartup;
  /** browser_vision's analysis step (vision_analyze on the screenshot). */
  vision: VisionAnalyzer;
  /** The managed scope the tool server runs with (managed-overlay.ts). */
  managed: ManagedOverlay;
  /** The tool server's whole environment, as the worker hands it on. */
  environment: Readonly<Record<string, string>>;
}

/** The tool server's command: HERMES_MCP_HERMES_TOOLS_COMMAND, else Hermes' interpreter running its module. */
export function toolServerCommand(config: GatewayConfig, install: HermesInstall): string[] {
  return config.hermesToolsCommand ? [...config.hermesToolsCommand] : [hermesPython(config, install), '-m', HERMES_TOOLS_MODULE];
}

export function hermesToolsAdapter(config: GatewayConfig, install: HermesInstall, runtime: WorkerRuntime, log: Logger, policy: ToolPolicy = loadToolPolicy()): HermesToolsAdapter {
  const { limits } = config;
  const expected = TOOL_SERVER_TOOLS.filter((name) => policy.allow.has(name));
  const inherited = hermesInheritance(config.inheritedEnvironment);
  // The tool server alone runs with the gateway's managed scope over the administrator's
  // (managed-overlay.ts): no tool search hiding tools, vision answered as text, no keyless rescue.
  const managed = writeToolServerOverlay({ stateDir: config.stateDir, admin: managedScopeDir(config) });
  for (const warning of managed.warnings) log.warn({ event: 'hermes_tools_managed_scope', reason: warning }, "Hermes' tool server managed scope");
  const env = { ...hermesEnvironment(inherited, config.hermesHome), ...(managed.dir ? { HERMES_MANAGED_DIR: managed.dir } : {}) };
  const command = toolServerCommand(config, install);
  const worker = new HermesToolsWorker(
    runtime,
    {
      command,
      cwd: config.hermesToolsCwd,
      openTimeoutMs: limits.hermesToolsStartupTimeoutSeconds * 1000,
      restartMinMs: limits.hermesToolsRestartMinMs,
      restartMaxMs: limits.hermesToolsRestartMaxSeconds * 1000,
      stuckPingMs: limits.hermesToolsStuckPingMs,
    },
    env,
    log,
  );
  const call = toolServerCall(worker, limits);
  let startup: ToolServerStartup = { kind: 'pending' };
  let web: WebCheck[] | undefined;
  const served = (name: string) => startup.kind === 'listed' && startup.served.includes(name);
  const whyNot = (name: string) =>
    startup.kind === 'unavailable' ? `Hermes' tool server is not running (${startup.reason})` : `Hermes' tool server does not offer ${name}`;

  async function start(): Promise<ToolDefinition[]> {
    const tools = await listTools();
    if (startup.kind === 'listed') log.info({ event: 'hermes_tools_ready', tools: startup.served, missing: startup.missing, unusable: startup.unusable }, "Hermes' tool server listed its tools");
    // Declared optional, an absent tool server is expected here: information, not a warning.
    else if (startup.kind === 'unavailable') log[config.optionalComponents.has('hermes_tools') ? 'info' : 'warn']({ event: 'hermes_tools_unavailable', status: startup.status, reason: startup.reason }, "Hermes' tool server unavailable at startup; its tools are not catalogued");
    return tools;
  }

  async function listTools(): Promise<ToolDefinition[]> {
    const argv0 = command[0]!;
    if (!existsSync(config.hermesToolsCwd) || !commandExists(argv0, inherited.PATH ?? '', config.hermesToolsCwd)) {
      const what = !existsSync(config.hermesToolsCwd)
        ? `its directory ${config.hermesToolsCwd} does not exist`
        : !config.hermesToolsCommand && install.state === 'not_installed' && !install.python
          ? install.reason
          : `the interpreter ${JSON.stringify(argv0)} was not found`;
      startup = { kind: 'unavailable', status: 'not_installed', reason: `Hermes' tool server cannot start: ${what}` };
      return [];
    }
    // One start budget for the list, a failed start's restart backoff and the restarts included.
    const withinMs = limits.hermesToolsStartupTimeoutSeconds * 1000;
    const reply = await worker.request({ type: 'tools', withinMs }, withinMs + WORKER_SLACK_MS);
    if (reply.failure || !('tools' in reply) || !reply.tools) {
      startup = { kind: 'unavailable', status: reply.failure?.code === 'HERMES_TOOLS_NOT_INSTALLED' ? 'not_installed' : 'error', reason: reply.failure?.message ?? 'the worker answered without a tool list' };
      await worker.close(); // nothing is catalogued from it until a restart: don't keep it retrying
      return [];
    }
    const tools: ToolDefinition[] = [];
    const unusable: Record<string, string> = {};
    for (const upstream of reply.tools.filter((t) => (expected as readonly string[]).includes(t.name))) {
      const tool = toolServerTool(upstream, call);
      if ('unusable' in tool) unusable[upstream.name] = tool.unusable;
      else tools.push(tool);
    }
    const names = tools.map((t) => t.name);
    startup = { kind: 'listed', ...(reply.server ? { server: reply.server } : {}), listed: reply.tools.map((t) => t.name), served: names, missing: expected.filter((n) => !names.includes(n) && !(n in unusable)), unusable };
    if (WEB_TOOLS.every(served)) {
      void smokeWeb(call, config.webSmokeUrl).then((checks) => {
        web = checks;
        log.info({ event: 'web_provider_checked', checks }, 'web provider smoke calls done');
      });
    }
    return tools;
  }

  async function toolServerProbe(): Promise<ProbeResult> {
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

  function webProviderProbe(): ProbeResult {
    if (startup.kind === 'pending') return { ready: false, status: 'starting', reason: "Hermes' tool server has not listed its tools yet" };
    if (startup.kind === 'unavailable') return { ready: false, status: 'unavailable', reason: `${whyNot('web_search')} (see hermes_tools)`, action: 'see hermes_tools' };
    const missing = WEB_TOOLS.filter((n) => !served(n));
    if (missing.length > 0) return webNotOffered(missing);
    if (!web) return { ready: false, status: 'starting', reason: 'the web_search and web_extract smoke calls are running' };
    return webProbe(web);
  }

  return {
    name: 'hermes_tools',
    worker,
    startup: () => startup,
    managed,
    environment: env,
    vision: toolServerVision({ offered: () => served('vision_analyze'), notOffered: () => whyNot('vision_analyze'), call }),
    source: { name: 'hermes', tools: start },
    readiness: [
      { name: 'hermes_tools', probe: toolServerProbe },
      { name: 'web_provider', probe: webProviderProbe },
    ],
    health: () => ({ hermes_tools_worker: worker.pid !== undefined }),
    close: () => worker.close(),
  };
}
