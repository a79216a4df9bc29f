import type { RpcDispatch } from './execute-code.js';
import { rpcReplyFor } from './execute-rpc.js';

// The hermes_tools calls of an execute_code script, other than terminal (which runs inside the
// script's own unit, see execute-code.ts): the file tools go through the Dispatcher as nested calls
// of the execute_code call (same owner, validation and error mapping as tool_call, internal errors
// logged there), and only the reply is shaped here, as Hermes' RPC answers; web tools answer "not
// configured" until the web adapter lands.

const WEB_NOT_CONFIGURED = 'web provider not configured: web_search/web_extract need the Hermes web backend adapter';

export function scriptToolDispatch(fileTools: readonly string[]): RpcDispatch {
  const files: ReadonlySet<string> = new Set(fileTools);
  return async (tool, args, ctx) => {
    if (tool === 'web_search' || tool === 'web_extract') return { error: WEB_NOT_CONFIGURED };
    if (!files.has(tool)) return { error: `Tool '${tool}' is not available in execute_code.` };
    return rpcReplyFor(await ctx.callNested(tool, args));
  };
}
