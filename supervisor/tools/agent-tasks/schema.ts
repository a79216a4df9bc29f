import { TASK_ID } from './tasks.js';

// The argument schemas the agent-task tools share.

export const ID = { type: 'string', pattern: TASK_ID.source } as const;
// No pattern: a name that is not registered (whatever its spelling) is refused by resolveAgent
// as unknown_agent, naming the registered agents, before any upstream call.
export const AGENT = { type: 'string', maxLength: 64, description: 'A registered agent (list_agents); default: the registry default.' } as const;
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;
