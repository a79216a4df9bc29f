import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { VisionAnalyzer } from '../browser/index.js';
import { loadToolPolicy, type ToolPolicy } from '../../core/catalog/policy.js';
import type { GatewayConfig } from '../../platform/config.js';
import { hermesEnvironment, hermesInheritance } from '../../platform/hermes/environment.js';
import type { HermesInstall } from '../../platform/hermes/locate.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { HermesToolsWorker, toolServerCall } from './tools.js';
import { listToolServer, served, TOOL_SERVER_TOOLS, toolServerCommand, WEB_TOOLS, whyNot, type ToolServerStartup } from './listing.js';
import { writeToolServerOverlay, type ManagedOverlay } from './managed-overlay.js';
import { managedScopeDir } from '../../platform/hermes/managed-scope.js';
import { toolServerProbe, webProviderProbe } from './probes.js';
import { toolServerVision } from './vision.js';
import { smokeWeb, type WebCheck } from './web-readiness.js';

// The Hermes tools adapter: the allowlisted tools only Hermes implements (web, vision, image,
// video), served by Hermes' own stdio MCP tool server in the Hermes tools worker — never a second
// web or vision stack, never a schema written here. At startup the tool server is asked for its
// tools once; the allowlisted ones it offers are catalogued with its schemas (under the catalog's
// `hermes` source, beside the skills), the ones it does not offer are reported missing, never
// invented. Then, in the background, one real web_search and one real web_extract decide
// /readyz `web_provider` (web-readiness.ts). /readyz `hermes_tools` is the tool server itself:
// up and answering a ping, or restarting (with its backoff and last failure), or not installed.

export { TOOL_SERVER_TOOLS, toolServerCommand, type ToolServerStartup } from './listing.js';

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

  async function start(): Promise<ToolDefinition[]> {
    const tools = await listToolServer({ config, install, command, path: inherited.PATH ?? '', worker, call, expected }, (found) => {
      startup = found;
    });
    if (startup.kind === 'listed') {
      log.info({ event: 'hermes_tools_ready', tools: startup.served, missing: startup.missing, unusable: startup.unusable }, "Hermes' tool server listed its tools");
      if (WEB_TOOLS.every((name) => served(startup, name))) {
        void smokeWeb(call, config.webSmokeUrl).then((checks) => {
          web = checks;
          log.info({ event: 'web_provider_checked', checks }, 'web provider smoke calls done');
        });
      }
    }
    // Declared optional, an absent tool server is expected here: information, not a warning.
    else if (startup.kind === 'unavailable') log[config.optionalComponents.has('hermes_tools') ? 'info' : 'warn']({ event: 'hermes_tools_unavailable', status: startup.status, reason: startup.reason }, "Hermes' tool server unavailable at startup; its tools are not catalogued");
    return tools;
  }

  return {
    name: 'hermes_tools',
    worker,
    startup: () => startup,
    managed,
    environment: env,
    vision: toolServerVision({ offered: () => served(startup, 'vision_analyze'), notOffered: () => whyNot(startup, 'vision_analyze'), call }),
    source: { name: 'hermes', tools: start },
    readiness: [
      { name: 'hermes_tools', probe: () => toolServerProbe(startup, managed, worker) },
      { name: 'web_provider', probe: () => webProviderProbe(startup, web) },
    ],
    health: () => ({ hermes_tools_worker: worker.pid !== undefined }),
    close: () => worker.close(),
  };
}
