import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../../core/tool-types.js';
import { mutate, read, unknownOutcome, type MemoryToolDeps, type MutationResult } from '../calls.js';
import type { Prepared } from '../honcho.js';
import { checkConclusion, CONCLUSION_KINDS, contentDigest, encodeConclusion } from '../policy.js';
import { conclusionView, identityView } from '../views.js';

// memory_conclude: create, list and delete this gateway's durable conclusions about the user. A
// create passes the conclusion policy (policy.ts) before anything is sent; a delete only removes a
// conclusion this gateway could list; a mutation that ends unconfirmed is never re-sent (calls.ts).

const ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' } as const;

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

async function create(deps: MemoryToolDeps, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
  const { limits } = deps;
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

async function list(deps: MemoryToolDeps, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
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

async function remove(deps: MemoryToolDeps, args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome> {
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
  if (result.state === 'unknown') return unknownOutcome('delete', deps.limits, result.running, { id });
  return { structured: { state: 'deleted', id } };
}

export function concludeTool(deps: MemoryToolDeps): ToolDefinition {
  const { limits } = deps;
  return {
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
      if (action === 'create') return create(deps, args, ctx);
      if (action === 'list') return list(deps, args, ctx);
      return remove(deps, args, ctx);
    },
  };
}
