import type { Conclusion } from '@honcho-ai/sdk';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { REASONING_LEVELS, type ReasoningLevel } from './config.js';
import { honchoStatus, type Prepared } from './honcho.js';
import { checkQuery, mutate, read, unknownOutcome, type MemoryToolDeps, type MutationResult } from './calls.js';
import { checkConclusion, CONCLUSION_KINDS, contentDigest, decodeConclusion, encodeConclusion } from './policy.js';

// The five memory tools over Honcho v3 (the REST API in Honcho's docs/v3/openapi.json):
//
//   memory_profile    GET  peers/{observer}/card?target={user}, else peers/{user}/card     (read-only)
//   memory_search     POST search (filter peer_perspective {user}: Hermes' message excerpts)
//                     + GET peers/{observer}/context?target={user}&search_query&search_top_k
//                     (fallback POST peers/{observer}/representation) + POST conclusions/query
//   memory_context    GET  peers/{observer}/context?target={user}[&search_query] + POST conclusions/list
//                     + GET sessions/{s}/context?summary=true&peer_target={user} (s: `session`, else
//                     the project's Hermes session, left out when Honcho has none)
//   memory_reasoning  POST peers/{observer}/chat (target {user})                       (Honcho's LLM)
//   memory_conclude   POST conclusions | POST conclusions/list | DELETE conclusions/{id}
//
// Reads take Hermes' perspective (its assistant peer's view of the user, as Hermes' own tools read it,
// or the user's own view when Hermes' assistant does not observe others: settings.readObserver);
// writes are conclusions observed by the assistant peer `chatgpt` about the user peer. Every call
// is `native`: it is counted in /healthz inflight_native_calls until its Honcho request really ends.
// (supervisor/tools/memory/calls.ts) A call answers after memoryTimeoutSeconds; a read that ran out answers MEMORY_TIMEOUT (safe to
// retry), a mutation whose request was already sent answers `state: unknown` and is never re-sent.

const RECENT_CONCLUSIONS = 10;
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
const SESSION_MESSAGES = 5;
const SESSION_MESSAGE_CHARS = 200;
const ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' } as const;

function conclusionView(c: Conclusion): Record<string, unknown> {
  const { kind, content } = decodeConclusion(c.content);
  return { id: c.id, kind, content, created_at: c.createdAt, ...(c.level && c.level !== 'explicit' ? { level: c.level } : {}) };
}

function identityView(p: Prepared): Record<string, unknown> {
  return { workspace: p.honcho.workspaceId, user_peer: p.user.id, assistant_peer: p.assistant.id };
}

// ---------------------------------------------------------------------------------------------
// Mutations

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;

export type { MemoryState, MemoryToolDeps } from './calls.js';

export function memoryTools(deps: MemoryToolDeps): ToolDefinition[] {
  const { limits } = deps;
  const queryText = `at most ${limits.memoryQueryMaxChars} characters`;

  const profile: ToolDefinition = {
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

  const search: ToolDefinition = {
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

  const context: ToolDefinition = {
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

  const reasoning: ToolDefinition = {
    name: 'memory_reasoning',
    description:
      "Ask Honcho's dialectic reasoning a natural-language question about the user and get a synthesized answer from everything Hermes' memory knows. Uses Honcho's LLM: slower and costlier than memory_search or memory_profile. reasoning_level: minimal, low (default), medium, high, max.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: `A natural-language question (${queryText}).` },
        reasoning_level: { type: 'string', enum: [...REASONING_LEVELS], description: 'Depth of reasoning; omit for the configured default (dialecticReasoningLevel, usually low).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    holdsLease: true,
    async handler(args, ctx) {
      const query = checkQuery(args.query, limits)!;
      const settings = deps.state.kind === 'configured' ? deps.state.backend.settings : undefined;
      const requested = args.reasoning_level as ReasoningLevel | undefined;
      const level: ReasoningLevel = requested && (settings?.reasoningDynamic ?? true) ? requested : (settings?.reasoningLevel ?? 'low');
      const r = await read(deps, ctx, async (p) => ({ p, answer: await p.observer.chat(query, { reasoningLevel: level, ...(p.observer === p.user ? {} : { target: p.user.id }) }) }));
      return { structured: { ...identityView(r.p), query, reasoning_level: level, answer: r.answer } };
    },
  };

  const conclude: ToolDefinition = {
    name: 'memory_conclude',
    description:
      `Store, list or delete durable conclusions about the user in the Hermes memory (Honcho), written as the assistant peer "chatgpt". action "create" (default) needs \`conclusion\` (one lasting fact, at most ${limits.memoryConclusionMaxChars} characters) and \`kind\`: ${CONCLUSION_KINDS.join(', ')}. Secret-like or explicitly temporary content is refused. action "list" pages through this gateway's conclusions (newest first); action "delete" removes one of those listed conclusions by \`id\` (permanent; conclusions of other peers, e.g. Hermes' own, are not deletable here). A create or delete that times out answers state "unknown" and is never re-sent: reconcile with list instead of retrying.`,
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['create', 'list', 'delete'], description: 'create (default), list or delete.' },
        conclusion: { type: 'string', minLength: 1, description: 'create: the durable fact to store.' },
        kind: { type: 'string', enum: [...CONCLUSION_KINDS], description: 'create: what kind of durable fact this is.' },
        id: { ...ID, description: 'delete: the conclusion id (from list or create).' },
        page: { type: 'integer', minimum: 1, maximum: 100000, description: 'list: page number (default 1).' },
        size: { type: 'integer', minimum: 1, maximum: 100, description: 'list: page size (default 20).' },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false },
    holdsLease: true,
    async handler(args, ctx) {
      const action = (args.action as string | undefined) ?? 'create';
      const allowed: Record<string, string[]> = { create: ['action', 'conclusion', 'kind'], list: ['action', 'page', 'size'], delete: ['action', 'id'] };
      const stray = Object.keys(args).filter((k) => !allowed[action]!.includes(k));
      if (stray.length > 0) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `memory_conclude ${action} does not take ${stray.map((s) => `\`${s}\``).join(', ')}`);
      if (action === 'create') return create(args, ctx);
      if (action === 'list') return list(args, ctx);
      return remove(args, ctx);
    },
  };

  async function create(args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
    // Policy first: nothing reaches Honcho (or even the ledger) unless the conclusion passes.
    const { text, kind } = checkConclusion(args.conclusion, args.kind, limits.memoryConclusionMaxChars);
    const content = encodeConclusion(kind, text);
    const digest = contentDigest(content);
    const result = await mutate(deps, ctx, {
      key: `create:${digest}`,
      operation: 'create',
      kind,
      content_sha256: digest,
      send: (p) => p.assistant.conclusionsOf(p.user.id).create({ content }),
      resultId: (created) => created[0]?.id,
    });
    if (result.state === 'unknown') return unknownOutcome('create', limits, result.running, { kind, content_sha256: digest });
    const created = result.value[0];
    if (!created) throw new GatewayError(ErrorCode.MEMORY_UNAVAILABLE, 'Honcho accepted the conclusion but returned no record of it');
    return { structured: { state: 'created', conclusion: conclusionView(created) } };
  }

  async function list(args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
    const page = (args.page as number | undefined) ?? 1;
    const size = (args.size as number | undefined) ?? 20;
    const r = await read(deps, ctx, async (p) => ({ p, page: await p.assistant.conclusionsOf(p.user.id).list({ page, size }) }));
    return {
      structured: {
        ...identityView(r.p),
        conclusions: r.page.items.map(conclusionView),
        page: r.page.page,
        size: r.page.size,
        total: r.page.total,
        pages: r.page.pages,
        unresolved: deps.ledger.unresolved(),
        late_outcomes: deps.ledger.late(),
      },
    };
  }

  async function remove(args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
    const id = args.id;
    if (typeof id !== 'string') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'memory_conclude delete needs the conclusion `id`');
    let result: MutationResult<void>;
    try {
      result = await mutate(deps, ctx, {
        key: `delete:${id}`,
        operation: 'delete',
        id,
        // Only a conclusion this gateway could list (observer chatgpt, observed the user peer) is
        // deleted: Honcho's DELETE /conclusions/{id} itself would remove any conclusion in the workspace.
        precheck: (p) => assertOwnConclusion(p, id),
        send: (p) => p.assistant.conclusionsOf(p.user.id).delete(id),
      });
    } catch (e) {
      if (e instanceof GatewayError && e.details?.http_status === 404) {
        throw new GatewayError(ErrorCode.MEMORY_CONCLUSION_NOT_FOUND, `no conclusion ${id} in this Honcho workspace`, { id, state: 'failed' });
      }
      throw e;
    }
    if (result.state === 'unknown') return unknownOutcome('delete', limits, result.running, { id });
    return { structured: { state: 'deleted', id } };
  }

  // Hermes' dispatch coercion on each (supervisor/core/hermes-args.ts): `limit: "5"` is 5, as Hermes'
  // honcho tools read their numbers with int().
  return [profile, search, context, reasoning, conclude].map(withHermesArgumentRepair);
}

const OWNERSHIP_PAGE_SIZE = 100;
const OWNERSHIP_MAX_PAGES = 10;

/**
 * Throws MEMORY_CONCLUSION_NOT_FOUND unless `id` is among the conclusions observed by the assistant
 * peer about the user peer: the filtered list memory_conclude list reads, paged through at most
 * OWNERSHIP_MAX_PAGES pages. Another peer's conclusion answers exactly like a missing one.
 */
async function assertOwnConclusion(p: Prepared, id: string): Promise<void> {
  const view = p.assistant.conclusionsOf(p.user.id);
  let pages = 1;
  for (let page = 1; page <= Math.min(pages, OWNERSHIP_MAX_PAGES); page++) {
    const listed = await view.list({ page, size: OWNERSHIP_PAGE_SIZE });
    if (listed.items.some((c) => c.id === id)) return;
    pages = listed.pages;
    if (listed.items.length === 0) break;
  }
  const scanned = pages > OWNERSHIP_MAX_PAGES;
  throw new GatewayError(
    ErrorCode.MEMORY_CONCLUSION_NOT_FOUND,
    `no conclusion ${id} among this gateway's conclusions (observer ${p.assistant.id}, observed ${p.user.id})${scanned ? `; only the newest ${OWNERSHIP_MAX_PAGES * OWNERSHIP_PAGE_SIZE} were checked` : ''}; nothing was deleted`,
    { id, state: 'not_sent', ...(scanned ? { checked: OWNERSHIP_MAX_PAGES * OWNERSHIP_PAGE_SIZE } : {}) },
  );
}

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
