import { existsSync } from 'node:fs';
import type { HermesToolServerInfo } from '../../../shared/worker-protocol/hermes-tools.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { GatewayConfig } from '../../platform/config.js';
import { HERMES_TOOLS_MODULE, hermesPython, type HermesInstall } from '../../platform/hermes/locate.js';
import { commandExists } from '../../platform/spawning/command-exists.js';
import { WORKER_SLACK_MS } from '../../platform/spawning/resident-worker.js';
import { toolServerTool, type HermesToolsWorker, type ToolServerCall } from './tools.js';

// What Hermes' tool server offers, asked once at startup: the allowlisted tools it lists are
// catalogued with its schemas, the ones it does not offer are reported missing, never invented.

/** The allowlisted tools whose only implementation is Hermes' (the others run natively here: files, terminal, execute_code, skills, browser). */
export const TOOL_SERVER_TOOLS = ['web_search', 'web_extract', 'vision_analyze', 'image_generate', 'video_analyze'] as const;
export const WEB_TOOLS = ['web_search', 'web_extract'];

/**
 * What the startup found: nothing yet, no tool server, or the one it listed — its MCP serverInfo,
 * every tool name it listed, and of the allowlisted ones those catalogued (`served`), those it
 * does not offer (`missing`) and those whose schema cannot be served (`unusable`).
 */
export type ToolServerStartup =
  | { kind: 'pending' }
  | { kind: 'unavailable'; status: 'not_installed' | 'error'; reason: string }
  | { kind: 'listed'; server?: HermesToolServerInfo; listed: string[]; served: string[]; missing: string[]; unusable: Record<string, string> };

/** The tool server's command: HERMES_MCP_HERMES_TOOLS_COMMAND, else Hermes' interpreter running its module. */
export function toolServerCommand(config: GatewayConfig, install: HermesInstall): string[] {
  return config.hermesToolsCommand ? [...config.hermesToolsCommand] : [hermesPython(config, install), '-m', HERMES_TOOLS_MODULE];
}

export interface ListingDeps {
  config: GatewayConfig;
  install: HermesInstall;
  command: string[];
  /** The PATH the tool server inherits, where its interpreter is looked up. */
  path: string;
  worker: HermesToolsWorker;
  call: ToolServerCall;
  /** The allowlisted tools the policy allows. */
  expected: readonly string[];
}

/** Whether the startup catalogued `name`. */
export function served(startup: ToolServerStartup, name: string): boolean {
  return startup.kind === 'listed' && startup.served.includes(name);
}

/** Why `name` is not served, in the words a refusal uses. */
export function whyNot(startup: ToolServerStartup, name: string): string {
  return startup.kind === 'unavailable' ? `Hermes' tool server is not running (${startup.reason})` : `Hermes' tool server does not offer ${name}`;
}

/** Lists the tool server's tools; what it found is handed to `settle` as soon as it is known. */
export async function listToolServer(d: ListingDeps, settle: (startup: ToolServerStartup) => void): Promise<ToolDefinition[]> {
  const { config, install, command, worker } = d;
  const limits = config.limits;
  const argv0 = command[0]!;
  if (!existsSync(config.hermesToolsCwd) || !commandExists(argv0, d.path, config.hermesToolsCwd)) {
    const what = !existsSync(config.hermesToolsCwd)
      ? `its directory ${config.hermesToolsCwd} does not exist`
      : !config.hermesToolsCommand && install.state === 'not_installed' && !install.python
        ? install.reason
        : `the interpreter ${JSON.stringify(argv0)} was not found`;
    settle({ kind: 'unavailable', status: 'not_installed', reason: `Hermes' tool server cannot start: ${what}` });
    return [];
  }
  // One start budget for the list, a failed start's restart backoff and the restarts included.
  const withinMs = limits.hermesToolsStartupTimeoutSeconds * 1000;
  const reply = await worker.request({ type: 'tools', withinMs }, withinMs + WORKER_SLACK_MS);
  if (reply.failure || !('tools' in reply) || !reply.tools) {
    settle({ kind: 'unavailable', status: reply.failure?.code === 'HERMES_TOOLS_NOT_INSTALLED' ? 'not_installed' : 'error', reason: reply.failure?.message ?? 'the worker answered without a tool list' });
    await worker.close(); // nothing is catalogued from it until a restart: don't keep it retrying
    return [];
  }
  const tools: ToolDefinition[] = [];
  const unusable: Record<string, string> = {};
  for (const upstream of reply.tools.filter((t) => (d.expected as readonly string[]).includes(t.name))) {
    const tool = toolServerTool(upstream, d.call);
    if ('unusable' in tool) unusable[upstream.name] = tool.unusable;
    else tools.push(tool);
  }
  const names = tools.map((t) => t.name);
  settle({ kind: 'listed', ...(reply.server ? { server: reply.server } : {}), listed: reply.tools.map((t) => t.name), served: names, missing: d.expected.filter((n) => !names.includes(n) && !(n in unusable)), unusable });
  return tools;
}
