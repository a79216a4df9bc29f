import { randomUUID } from 'node:crypto';
import { ErrorCode, GatewayError, isGatewayError } from '../shared/errors.js';
import type { Limits } from '../shared/limits.js';
import { errorOutcome, normalizeResult, outcomeFromError } from '../shared/result.js';
import type { CallContext, NormalizedToolResult, Owner, ToolOutcome } from './tool-types.js';
import type { CatalogEntry } from './catalog/catalog.js';
import { normalizeOffloaded } from './cpu/pool.js';
import type { CapabilityStore } from './owners/capabilities.js';
import type { OwnerRegistry } from './owners/owners.js';
import { currentRequest } from './telemetry.js';

// The one path every tool call takes: owner resolution, argument validation (before anything runs),
// the owner check, the owner lease for work that may outlive its answer, error mapping and result normalisation. A reader follows
// any tool from its schema (the source file) through here to its handler.

/** What the MCP layer knows about the request a call arrived on. */
export interface RequestScope {
  era: 'legacy' | 'modern';
  /** Set only for a legacy request whose Mcp-Session-Id the SDK transport validated. */
  sessionId?: string;
  /** Aborts on client disconnect or session teardown. */
  signal: AbortSignal;
}

export class Dispatcher {
  constructor(
    private readonly deps: {
      owners: OwnerRegistry;
      capabilities: CapabilityStore;
      limits: Limits;
      onInternalError: (tool: string, error: unknown) => void;
    },
  ) {}

  /**
   * The owner of a call. Only a validated legacy session or a live capability token grants a durable
   * owner; a sessionless call without a token gets a fresh owner nobody else can ever present.
   */
  resolveOwner(scope: RequestScope, sessionToken?: string): Owner {
    if (sessionToken !== undefined) {
      const record = this.deps.capabilities.resolve(sessionToken, scope.sessionId);
      return { id: `cap:${record.id}`, kind: 'capability' };
    }
    if (scope.sessionId) return { id: `legacy:${scope.sessionId}`, kind: 'legacy' };
    return { id: `request:${randomUUID()}`, kind: 'request' };
  }

  /** Validates and runs one catalogued tool for an already-resolved owner. Never throws. */
  async run(entry: CatalogEntry, rawArgs: unknown, scope: RequestScope, owner: Owner): Promise<NormalizedToolResult> {
    const { tool } = entry;
    const record = currentRequest();
    if (record && !record.tool) record.tool = tool.name;
    let outcome: ToolOutcome;
    try {
      const args = entry.validate(rawArgs);
      if (tool.requiresOwner && owner.kind === 'request') {
        throw new GatewayError(
          ErrorCode.OWNER_REQUIRED,
          `${tool.name} needs a durable owner: call session_open once and pass its token as tool_call.session_token (or use a legacy MCP session)`,
        );
      }
      if (scope.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'the request was cancelled before the tool started');
      const ctx: CallContext = { owner, signal: scope.signal, callId: randomUUID(), era: scope.era, ...(scope.sessionId ? { sessionId: scope.sessionId } : {}) };
      // Work a lease-holding handler leaves running past its answer stays counted under the same owner.
      if (tool.holdsLease) ctx.retain = (work) => void this.deps.owners.runLeased(owner.id, () => work).catch(() => {});
      const work = () => tool.handler(args, ctx);
      outcome = tool.holdsLease ? await this.deps.owners.runLeased(owner.id, work) : await work();
    } catch (e) {
      if (isGatewayError(e)) outcome = outcomeFromError(e);
      else {
        this.deps.onInternalError(tool.name, e);
        outcome = errorOutcome(ErrorCode.INTERNAL_ERROR, `${tool.name} failed inside the gateway; see the gateway log for details`);
      }
    }
    if (record) record.category = categorize(outcome);
    const options = { maxChars: this.deps.limits.maxOutputChars, allowImages: tool.returnsImages === true };
    try {
      return await normalizeOffloaded(outcome, options, this.deps.limits.offloadResultChars);
    } catch (e) {
      // The thread pool failing must not lose the answer: normalise inline instead.
      this.deps.onInternalError(`${tool.name}:normalize`, e);
      return normalizeResult(outcome, options);
    }
  }
}

function categorize(outcome: ToolOutcome): string {
  const result = outcome.passthrough ?? { isError: outcome.isError, structuredContent: outcome.structured };
  if (!result.isError) return 'ok';
  const code = result.structuredContent?.error;
  return typeof code === 'string' ? `error:${code}` : 'error';
}
