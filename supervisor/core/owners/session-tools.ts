import { formatDuration } from '../../platform/duration.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { ToolDefinition } from '../tool-types.js';
import { principalKey } from '../scopes.js';
import type { CapabilityStore, OwnerRegistry } from './owners.js';

// session_open / session_close: capability sessions for sessionless (2026-07-28) clients, which
// have no MCP session to hang terminal cwd, processes or browser bindings on.

const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false } as const;

export function sessionTools(deps: {
  capabilities: CapabilityStore;
  owners: OwnerRegistry;
  ttlSeconds: number;
  onReleaseError: (ownerId: string, error: unknown) => void;
}): ToolDefinition[] {
  const open: ToolDefinition = {
    name: 'session_open',
    description:
      `Open a capability session and get a session_token (valid ${formatDuration(deps.ttlSeconds)}, fixed). Pass it as the top-level tool_call.session_token on calls that need continuity: terminal cwd/environment, process_manage, browser tools, job_prepare/job_start. Close it with session_close when done. ` +
      'Opened inside an MCP session (2025 protocol), the token works only on that session (SESSION_TOKEN_FOREIGN elsewhere), and that session is already an owner of its own. ' +
      'A client that reconnects for every call gets a new MCP session, so a fresh owner, each time: cwd and exported variables are lost between calls and an earlier token is foreign. Keep one MCP session open, or call from a sessionless 2026-07-28 client with a token.',
    inputSchema: { ...NO_ARGS },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, idempotentHint: false },
    async handler(_args, ctx) {
      // Inside a legacy MCP session the token is bound to that session, so a leaked token cannot
      // be replayed from another connection; with authentication on, also to the opening credential.
      const opened = deps.capabilities.open(ctx.sessionId, ctx.grant ? principalKey(ctx.grant) : undefined);
      return {
        structured: {
          session_token: opened.token,
          expires_at: new Date(opened.expiresAt).toISOString(),
          expires_in_seconds: deps.ttlSeconds,
          usage: 'Pass as tool_call.session_token. Keep it out of logs and durable memory.',
        },
      };
    },
  };

  const close: ToolDefinition = {
    name: 'session_close',
    description:
      'Close the capability session whose token is passed as tool_call.session_token: the token stops working at once, and the processes and browser binding it owns are released (after any of its calls still running have finished).',
    inputSchema: { ...NO_ARGS },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false },
    async handler(_args, ctx) {
      if (ctx.owner.kind !== 'capability') {
        throw new GatewayError(ErrorCode.OWNER_REQUIRED, 'session_close closes the capability passed as tool_call.session_token; none was passed');
      }
      const id = ctx.owner.id.slice('cap:'.length);
      deps.capabilities.revokeById(id);
      const pending = deps.owners.leaseCount(ctx.owner.id);
      const release = deps.owners.release(ctx.owner.id).catch((e) => deps.onReleaseError(ctx.owner.id, e));
      // With nothing running, finish the release before answering so the caller knows its
      // processes are gone; otherwise cleanup follows the running work's completion.
      if (pending === 0) await release;
      return { structured: { closed: true, pending_native_calls: pending, released: pending === 0 ? 'done' : 'after_running_calls_finish' } };
    },
  };
  return [open, close];
}
