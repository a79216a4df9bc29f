import type { Adapter } from '../../core/adapter.js';
import type { StartupConfig } from './read.js';
import { startupContextTool, startupReadiness } from './startup-context.js';

// startup_context (Hermes' SOUL.md, AGENTS.md and the other startup files, bounded and redacted) and
// its /readyz component `startup_files`; one of the gateway's own tools, beside session_open/close.

export function startupAdapter(config: StartupConfig): Adapter {
  return { name: 'startup', source: { name: 'gateway', tools: () => [startupContextTool(config)] }, readiness: [startupReadiness(config)] };
}
