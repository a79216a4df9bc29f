import type { ToolDefinition } from '../../../core/tool-types.js';
import { read, type MemoryToolDeps } from '../calls.js';
import { identityView, READ_ONLY } from '../views.js';

// memory_profile: the user's Honcho peer card, as Hermes' honcho_profile reads it.

export function profileTool(deps: MemoryToolDeps): ToolDefinition {
  return {
    name: 'memory_profile',
    description:
      "Read the user's Honcho peer card from the Hermes memory: the curated list of durable facts (name, role, preferences, working style) Hermes has learned about the user. Read-only: the card is built by Honcho and cannot be replaced through this gateway.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: READ_ONLY,
    holdsLease: true,
    async handler(_args, ctx) {
      // Hermes' honcho_profile (session.py get_peer_card): its assistant peer's card of the user, else the user's own.
      const r = await read(deps, ctx, async (p) => {
        if (p.observer === p.user) return { p, card: await p.user.getCard() };
        const observed = await p.observer.getCard(p.user.id);
        return { p, card: observed && observed.length > 0 ? observed : await p.user.getCard() };
      });
      const card = r.card ?? [];
      return {
        structured: {
          ...identityView(r.p),
          card,
          ...(card.length === 0
            ? { hint: 'No profile facts yet: this is not an error. Honcho builds the peer card over time from observed Hermes conversations; try memory_search or memory_reasoning.' }
            : {}),
        },
      };
    },
  };
}
