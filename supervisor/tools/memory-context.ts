import { ErrorCode } from '../../shared/errors.js';
import { errorOutcome } from '../../shared/result.js';
import type { ToolDefinition } from '../../shared/tool-types.js';
import type { ReadinessComponent } from '../health/readiness.js';

// Placeholder memory source until the Honcho adapter lands: memory_context is one of the six public
// tools, so it must exist, and it must say plainly that no backend is behind it.

export const MEMORY_NOT_CONFIGURED_MESSAGE = 'memory backend not configured: this gateway has no Honcho adapter yet';

export function memoryPlaceholderTools(): ToolDefinition[] {
  return [
    {
      name: 'memory_context',
      description: "Return durable context about the user and project from the Hermes memory backend (Honcho): the user's representation, peer card and recent conclusions.",
      inputSchema: { type: 'object', properties: { query: { type: 'string', maxLength: 2000 } }, additionalProperties: false },
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
      async handler() {
        return errorOutcome(ErrorCode.MEMORY_NOT_CONFIGURED, MEMORY_NOT_CONFIGURED_MESSAGE);
      },
    },
  ];
}

export function memoryPlaceholderReadiness(): ReadinessComponent {
  return { name: 'memory', probe: () => ({ ready: false, status: 'not_configured', reason: MEMORY_NOT_CONFIGURED_MESSAGE }) };
}
