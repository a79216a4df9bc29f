import type { Conclusion } from '@honcho-ai/sdk';
import type { Prepared } from './honcho.js';
import { decodeConclusion } from './policy.js';

// How the memory tools show what Honcho answered: a conclusion, and which workspace and peers answered.

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

export function conclusionView(c: Conclusion): Record<string, unknown> {
  const { kind, content } = decodeConclusion(c.content);
  return { id: c.id, kind, content, created_at: c.createdAt, ...(c.level && c.level !== 'explicit' ? { level: c.level } : {}) };
}

export function identityView(p: Prepared): Record<string, unknown> {
  return { workspace: p.honcho.workspaceId, user_peer: p.user.id, assistant_peer: p.assistant.id };
}
