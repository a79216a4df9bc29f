import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { CallContext, ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { callBudget } from './client.js';
import { cleanRef } from './page-text.js';
import type { BrowserCall, CamofoxSessions } from './session.js';
import type { BrowserSettings } from './settings.js';

// What every browser tool is built with: one call at a time per owner on its own tab, within one
// budget, a failure answered with `success: false` as Hermes' browser tools answer it, and the
// words and argument checks the tools share.

export const NEEDS_OWNER = 'Needs a browser session: pass session_open\'s session_token (or use a legacy MCP session); each session has its own tab.';
export const AFTER_NAVIGATE = 'Requires browser_navigate to be called first.';

export const readOnly = { readOnlyHint: true, destructiveHint: false, openWorldHint: true, idempotentHint: true };
export const acts = { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: false };
export const noArgs = { type: 'object' as const, properties: {}, additionalProperties: false };

export const ok = (structured: Record<string, unknown>): ToolOutcome => ({ structured: { success: true, ...structured } });

export function tooLarge(what: string, length: number, max: number, limit: string): GatewayError {
  return new GatewayError(ErrorCode.BROWSER_INPUT_TOO_LARGE, `${what} is ${length} characters; the limit is ${max} (${limit})`);
}

export function refArg(raw: unknown): string {
  const ref = cleanRef(String(raw));
  if (!ref) throw new GatewayError(ErrorCode.BROWSER_REF_INVALID, `${JSON.stringify(String(raw).slice(0, 40))} is not an element ref: use a ref like @e5 from browser_snapshot`, { recovery: 'browser_snapshot' });
  return ref;
}

type Run = (args: Record<string, unknown>, ctx: CallContext, call: BrowserCall) => Promise<ToolOutcome>;
type BrowserToolSpec = Omit<ToolDefinition, 'requiresOwner' | 'holdsLease' | 'handler'> & { run: Run; budget?: 'navigate' };

export interface BrowserKit {
  sessions: CamofoxSessions;
  s: BrowserSettings;
  /** The page's accessibility snapshot and its ref count, read on the owner's tab. */
  snapshotText(ctx: CallContext, call: BrowserCall): Promise<{ snapshot: string; refsCount: number }>;
  /** A browser tool: owned, budgeted, with Hermes' argument repair. */
  tool(def: BrowserToolSpec): ToolDefinition;
}

export function browserKit(sessions: CamofoxSessions): BrowserKit {
  const s = sessions.settings;
  const snapshotText = async (ctx: CallContext, call: BrowserCall): Promise<{ snapshot: string; refsCount: number }> => {
    const reply = await sessions.onTab(ctx.owner.id, call, 'GET', '/snapshot', 'browser_snapshot');
    return { snapshot: typeof reply.json?.snapshot === 'string' ? reply.json.snapshot : '', refsCount: Number(reply.json?.refsCount ?? 0) };
  };
  // The call's one budget starts once it has its turn: browser.command_timeout, or the navigation
  // budget for the tools that load a page.
  // A failed call says `success: false` next to its error, as every Hermes browser tool does.
  const owned = (run: Run, budget: 'command' | 'navigate') => (args: Record<string, unknown>, ctx: CallContext) =>
    sessions
      .exclusive(ctx.owner.id, ctx.signal, () =>
        run(args, ctx, { signal: ctx.signal, budget: budget === 'navigate' ? callBudget(s.navigateTimeoutMs, 'browserNavigateTimeoutSeconds') : callBudget(s.commandTimeoutMs, 'browser.command_timeout') }),
      )
      .catch((e: unknown) => {
        if (e instanceof GatewayError) throw new GatewayError(e.code, e.message, { success: false, ...e.details });
        throw e;
      });
  const tool = (def: BrowserToolSpec): ToolDefinition => {
    const { run, budget, ...rest } = def;
    // holdsLease: session_close releases the binding only after the owner's browser calls settled.
    // Hermes' dispatch coercion (supervisor/core/hermes-args.ts): `annotate: "true"` is a boolean, as there.
    return withHermesArgumentRepair({ ...rest, requiresOwner: true, holdsLease: true, handler: owned(run, budget ?? 'command') });
  };
  return { sessions, s, snapshotText, tool };
}
