import type { ToolDefinition } from '../../../core/tool-types.js';
import { checkQuery, read, type MemoryToolDeps } from '../calls.js';
import type { Prepared } from '../honcho.js';
import { conclusionView, identityView, READ_ONLY } from '../views.js';

// memory_search: Hermes' honcho_search excerpts, the user's representation around the query and the
// matching conclusions this gateway stored.

// Hermes' honcho_search at its default max_tokens (800): a budget of ~4 characters a token, and
// max(3, min(20, budget / 300)) messages (session.py search_context).
const EXCERPT_CHARS = 3200;
const EXCERPT_MESSAGES = 10;
const EXCERPT_MESSAGE_CHARS = 1200;
const EXCERPT_QUERY_CHARS = 4000;

/**
 * Hermes' honcho_search (session.py search_context): Honcho's message search over every session the
 * user took part in (filter peer_perspective), each message as `[author · session] text`, Hermes'
 * own assistant peer labelled `assistant`, joined by blank lines within EXCERPT_CHARS; null when
 * nothing matches. Lengths count characters (code points), as Python does.
 */
async function messageExcerpts(p: Prepared, query: string, hermesPeer: string): Promise<string | null> {
  const q = [...query.trim()].slice(0, EXCERPT_QUERY_CHARS).join('');
  const messages = await p.honcho.search(q, { filters: { peer_perspective: p.user.id }, limit: EXCERPT_MESSAGES });
  const lines: string[] = [];
  let used = 0;
  for (const m of messages) {
    const content = (m.content ?? '').trim();
    if (!content) continue;
    const author = m.peerId || 'unknown';
    const who = author === hermesPeer ? 'assistant' : author;
    const entry = [...`[${who}${m.sessionId ? ` · ${m.sessionId}` : ''}] ${[...content].slice(0, EXCERPT_MESSAGE_CHARS).join('')}`];
    const separator = lines.length > 0 ? 2 : 0;
    const remaining = EXCERPT_CHARS - used - separator;
    if (remaining <= 0) break;
    if (entry.length > remaining) {
      const cut = entry.slice(0, remaining).join('').trimEnd();
      if (cut) lines.push(cut);
      break;
    }
    lines.push(entry.join(''));
    used += separator + entry.length;
  }
  return lines.length > 0 ? lines.join('\n\n') : null;
}

export function searchTool(deps: MemoryToolDeps): ToolDefinition {
  const { limits } = deps;
  const queryText = `at most ${limits.memoryQueryMaxChars} characters`;
  return {
    name: 'memory_search',
    description:
      "Search the Hermes memory (Honcho) for what is known about the user: ranked excerpts of what was said in every session the user took part in (`excerpts`, as Hermes' honcho_search gives them), the user's representation curated around the query, plus matching durable conclusions this gateway stored. Raw excerpts, no LLM synthesis: cheaper than memory_reasoning.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: `What to look for (${queryText}).` },
        limit: { type: 'integer', minimum: 1, maximum: 25, description: 'How many semantically matching conclusions to use (default 10).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    holdsLease: true,
    async handler(args, ctx) {
      const query = checkQuery(args.query, limits)!;
      const limit = (args.limit as number | undefined) ?? 10;
      const hermesPeer = deps.state.kind === 'configured' ? deps.state.backend.settings.hermesPeer : '';
      const r = await read(deps, ctx, async (p) => {
        const [context, conclusions] = await Promise.all([
          p.observer.context({ target: p.user.id, searchQuery: query, searchTopK: limit }),
          p.assistant.conclusionsOf(p.user.id).query(query, limit),
        ]);
        // Hermes' fallback when the context carries no representation.
        const representation = context.representation || (await p.observer.representation({ target: p.user.id, searchQuery: query, searchTopK: limit })) || null;
        return { p, representation, conclusions, excerpts: await messageExcerpts(p, query, hermesPeer) };
      });
      return { structured: { ...identityView(r.p), query, excerpts: r.excerpts, representation: r.representation, conclusions: r.conclusions.map(conclusionView) } };
    },
  };
}
