import type { ToolDefinition } from '../../core/tool-types.js';
import { hermesCancelTool } from './cancel/index.js';
import { hermesFilesTool } from './files/index.js';
import { listAgentsTool } from './list-agents/index.js';
import { hermesResultTool } from './result/index.js';
import type { BridgeState } from './service.js';
import { hermesStatusTool } from './status/index.js';
import { hermesTaskTool } from './task/index.js';

// The five hermes-mcp-bridge tools, with that bridge's names, arguments and result shapes, and the
// gateway's own sixth, hermes_cancel (catalog only: the drop-in bridge profile serves exactly the
// five its clients know). They are always catalogued (the frozen catalog does not depend on
// configuration); without a configured bridge every call answers BRIDGE_NOT_CONFIGURED saying what
// to set.

export type { BridgeState } from './service.js';
// What the bridge profile (supervisor/http/bridge-profile) composes the family's state from.
export { CapabilityCache } from './capabilities.js';
export { AgentRegistry } from './registry.js';
export { readBridgeToken, resolveBridgeSettings } from './settings.js';
export { TaskStore } from './tasks.js';

export function bridgeTools(state: BridgeState): ToolDefinition[] {
  return [hermesTaskTool(state), hermesStatusTool(state), listAgentsTool(state), hermesResultTool(state), hermesFilesTool(state)];
}

/**
 * The gateway's agent-task tools beyond the bridge's five: hermes_cancel. Served through the
 * gateway's catalog (policy, scopes: a mutating tool needs hermes:full), never on the bridge
 * profile, whose clients and bridge:smoke expect exactly five tools.
 */
export function gatewayAgentTools(state: BridgeState): ToolDefinition[] {
  return [hermesCancelTool(state)];
}
