import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { AFTER_NAVIGATE, acts, NEEDS_OWNER, ok, readOnly, type BrowserKit } from '../kit.js';
import { truncateSnapshot } from '../page-text.js';
import { checkPageUrl } from '../url-policy.js';

// browser_navigate and browser_snapshot: open a page (its URL checked by url-policy.ts, where it
// landed checked again) and read its accessibility snapshot.

export function pageTools(kit: BrowserKit): ToolDefinition[] {
  const { sessions, s, snapshotText, tool } = kit;
  return [
    tool({
      name: 'browser_navigate',
      description: `Navigate to a URL (http or https) in the browser. Opens this session's tab on first use and returns a compact accessibility snapshot of the page with element refs (@e1, @e2, ...) for browser_click and browser_type, so a separate browser_snapshot is not needed. Loopback, private-network and cloud-metadata addresses are refused unless the host allows private addresses. ${NEEDS_OWNER}`,
      inputSchema: { type: 'object', properties: { url: { type: 'string', description: 'The URL to navigate to (e.g., https://example.com)' } }, required: ['url'], additionalProperties: false },
      annotations: { ...acts, title: 'Open a web page' },
      budget: 'navigate',
      async run(args, ctx, call) {
        const url = await checkPageUrl(String(args.url), sessions.urlPolicyWithin(call.budget));
        sessions.checkBudget(call.budget, 'open the page');
        const landed = await sessions.navigate(ctx.owner.id, call, url);
        await sessions.guardLanded(ctx.owner.id, call, landed);
        const result: Record<string, unknown> = { url: landed, title: '' };
        try {
          // Hermes: the snapshot is a bonus; a navigation that worked is reported even without it.
          const snap = await snapshotText(ctx, call);
          result.snapshot = truncateSnapshot(snap.snapshot, s.snapshotMaxChars);
          result.element_count = snap.refsCount;
        } catch (e) {
          if (e instanceof GatewayError && e.code === ErrorCode.CANCELLED) throw e;
        }
        return ok(result);
      },
    }),
    tool({
      name: 'browser_snapshot',
      description: `Get a text-based snapshot of the current page's accessibility tree: interactive elements carry ref IDs (like @e5) for browser_click and browser_type. A snapshot longer than ${s.snapshotMaxChars} characters is cut at a line boundary with a note. ${AFTER_NAVIGATE}`,
      inputSchema: {
        type: 'object',
        properties: { full: { type: 'boolean', description: 'Accepted for compatibility; this browser always returns the same interactive snapshot.', default: false } },
        additionalProperties: false,
      },
      annotations: { ...readOnly, title: 'Read the page' },
      async run(_args, ctx, call) {
        const snap = await snapshotText(ctx, call);
        return ok({ snapshot: truncateSnapshot(snap.snapshot, s.snapshotMaxChars), element_count: snap.refsCount });
      },
    }),
  ];
}
