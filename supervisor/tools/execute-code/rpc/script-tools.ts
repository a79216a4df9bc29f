import { ErrorCode } from '../../../../shared/errors.js';
import type { CallContext, ToolOutcome } from '../../../core/tool-types.js';

// The hermes_tools calls of an execute_code script, other than terminal (which runs inside the
// script's own unit, see script-terminal.ts): the file tools and the web tools go through the
// Dispatcher as nested calls of the execute_code call (same owner, validation and error mapping as
// tool_call, internal errors logged there), and only the reply is shaped here, as Hermes' RPC
// answers. The web tools are the catalog's, served by Hermes' own tool server
// (supervisor/tools/hermes-tools/): one path for tool_call and scripts. When the catalog has no web tool
// (Hermes' tool server is missing or offers none), the script is told why.

/** Dispatches one hermes_tools call made by the script of the call `ctx` belongs to. */
export type RpcDispatch = (tool: string, args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>;

const WEB_TOOLS: ReadonlySet<string> = new Set(['web_search', 'web_extract']);
const WEB_NOT_CONFIGURED = "web provider not configured: Hermes' tool server does not serve this tool here (see /readyz hermes_tools and web_provider)";

export function scriptToolDispatch(fileTools: readonly string[]): RpcDispatch {
  const files: ReadonlySet<string> = new Set(fileTools);
  return async (tool, args, ctx) => {
    if (WEB_TOOLS.has(tool)) return webReply(await ctx.callNested(tool, args));
    if (!files.has(tool)) return { error: `Tool '${tool}' is not available in execute_code.` };
    return rpcReplyFor(await ctx.callNested(tool, args));
  };
}

/** Hermes' web result as its RPC returns it: the JSON object, or the text when it is not one. */
function webReply(outcome: ToolOutcome): unknown {
  if (outcome.isError && outcome.structured?.error === ErrorCode.UNKNOWN_TOOL) return { error: WEB_NOT_CONFIGURED };
  if (outcome.structured || outcome.isError) return rpcReplyFor(outcome);
  return (outcome.content ?? []).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}

/**
 * A gateway tool's outcome as the reply Hermes' tools give a script: the structured value, or for
 * an error Hermes' shape, `{"error": "<message>", ...the error's fields}`, plus the stable code as
 * `code` (as Hermes' tool answers, e.g. read_file's `similar_files` and ReadResult fields). The
 * Dispatcher has already mapped the error (a stable code and a clear message; an internal error is
 * the generic message, its details only in the gateway log), so nothing internal reaches the
 * script from here.
 */
export function rpcReplyFor(outcome: ToolOutcome): Record<string, unknown> {
  const value = outcome.structured ?? {};
  if (!outcome.isError) return value;
  const { error: code, message, ...fields } = value;
  if (typeof message !== 'string') return { error: typeof code === 'string' ? code : 'the tool failed' };
  return typeof code === 'string' ? { ...fields, error: message, code } : { ...fields, error: message };
}
