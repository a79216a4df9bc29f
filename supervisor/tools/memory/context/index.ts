import type { ToolDefinition } from '../../../core/tool-types.js';
import { checkQuery, read, type MemoryToolDeps } from '../calls.js';
import { honchoStatus, type Prepared } from '../honcho.js';
import { conclusionView, identityView, READ_ONLY } from '../views.js';

// memory_context: the user's representation and card, the recent conclusions, and a Hermes
// session's summary and last messages.

const RECENT_CONCLUSIONS = 10;
const SESSION_MESSAGES = 5;
const SESSION_MESSAGE_CHARS = 200;

/** GET sessions/{s}/context without the SDK's session get-or-create: a read never creates a session. */
async function sessionContext(p: Prepared, id: string, tokens: number | undefined): Promise<Record<string, unknown>> {
  const session = p.session(id);
  try {
    const ctx = await session.context({ summary: true, peerTarget: p.user.id, ...(tokens ? { tokens } : {}) });
    return {
      id,
      summary: ctx.summary?.content ?? null,
      messages: ctx.messages.slice(-SESSION_MESSAGES).map((m) => ({
        peer: m.peerId,
        content: m.content.length > SESSION_MESSAGE_CHARS ? `${m.content.slice(0, SESSION_MESSAGE_CHARS)}…` : m.content,
        created_at: m.createdAt,
      })),
    };
  } catch (e) {
    if (honchoStatus(e) === 404) return { id, error: 'not_found' };
    throw e;
  }
}

export function contextTool(deps: MemoryToolDeps): ToolDefinition {
  const { limits } = deps;
  const queryText = `at most ${limits.memoryQueryMaxChars} characters`;
  return {
    name: 'memory_context',
    description:
      "Return durable context about the user and project from the Hermes memory backend (Honcho): the user's representation and peer card, the most recent conclusions stored through this gateway, and optionally a Hermes session's summary and last messages. No LLM synthesis.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: `Optional focus: curate the representation around this topic (${queryText}).` },
        session: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$', description: "Optional Honcho session id whose summary and recent messages to include; default: the project's Hermes session (shown when it exists)." },
      },
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    holdsLease: true,
    async handler(args, ctx) {
      const query = checkQuery(args.query, limits);
      // Without `session`: the project's Hermes session (identity.session, as Hermes' honcho_context
      // reads its current one), shown only when Honcho has it.
      const explicit = args.session as string | undefined;
      const sessionId = explicit ?? (deps.state.kind === 'configured' ? deps.state.backend.settings.identity.session : undefined);
      const contextTokens = deps.state.kind === 'configured' ? deps.state.backend.settings.contextTokens : undefined;
      const r = await read(deps, ctx, async (p) => {
        const [peer, recent, session] = await Promise.all([
          p.observer.context({ target: p.user.id, ...(query ? { searchQuery: query } : {}) }),
          p.assistant.conclusionsOf(p.user.id).list({ page: 1, size: RECENT_CONCLUSIONS }),
          sessionId ? sessionContext(p, sessionId, contextTokens).then((sc) => (explicit === undefined && sc.error === 'not_found' ? undefined : sc)) : Promise.resolve(undefined),
        ]);
        return { p, peer, recent, session };
      });
      return {
        structured: {
          ...identityView(r.p),
          ...(query ? { query } : {}),
          representation: r.peer.representation,
          card: r.peer.peerCard ?? [],
          recent_conclusions: r.recent.items.map(conclusionView),
          ...(r.session ? { session: r.session } : {}),
        },
      };
    },
  };
}
