import { randomUUID } from 'node:crypto';
import { ErrorCode, GatewayError, isGatewayError } from '../../shared/errors.js';
import type { Limits } from '../../shared/limits.js';
import { errorOutcome, normalizeResult, outcomeFromError } from './result.js';
import type { CallContext, DeferredCall, ForwardingToolDefinition, NormalizedToolResult, Owner, ToolDefinition, ToolOutcome } from './tool-types.js';
import type { Catalog, CatalogEntry } from './catalog/catalog.js';
import type { ArgumentValidator } from './catalog/validate.js';
import { normalizeOffloaded } from './result-offload.js';
import type { CapabilityStore } from './owners/capabilities.js';
import type { OwnerRegistry } from './owners/owners.js';
import type { RequestRecord } from '../platform/telemetry.js';
import { assertScope, principalKey, type Grant } from './scopes.js';

// The one path every tool call takes: target resolution, owner resolution, argument validation
// (before anything runs), the owner check, the owner lease for work that may outlive its answer,
// error mapping, categorisation and result normalisation, each done once. A reader follows any
// tool from its schema (the source file) through here to its handler. There are three ways in:
//   - callPublic: tools/call of one of the six public tools; tool_call forwards to callDeferred;
//   - callDeferred: the one deferred tool a tool_call names;
//   - CallContext.callNested: a tool called from inside another call (execute_code's hermes_tools),
//     for that call's owner; its outcome goes back to the caller, not to an MCP client.

/** What the MCP layer knows about the request a call arrived on. */
export interface RequestScope {
  era: 'legacy' | 'modern';
  /** Set only for a legacy request whose Mcp-Session-Id the SDK transport validated. */
  sessionId?: string;
  /** Aborts on client disconnect or session teardown. */
  signal: AbortSignal;
  /** The credential's grant when authentication is on: a tool outside its scope is refused before it runs. */
  grant?: Grant;
  /** The HTTP request's log and metrics record: the call writes its tool, target and outcome into it. */
  record?: RequestRecord;
}

/** A public tool: a catalogued tool run here, or tool_call, which forwards to one deferred tool. */
export type PublicEntry =
  | { kind: 'tool'; entry: CatalogEntry }
  | { kind: 'forward'; tool: ForwardingToolDefinition; validate: ArgumentValidator };

export class Dispatcher {
  constructor(
    private readonly deps: {
      catalog: Catalog;
      /** The six public tools by name. */
      publicTools: ReadonlyMap<string, PublicEntry>;
      owners: OwnerRegistry;
      capabilities: CapabilityStore;
      limits: Limits;
      onInternalError: (tool: string, error: unknown) => void;
    },
  ) {}

  /** tools/call on the MCP endpoint: only the six public tools are callable directly. Never throws. */
  async callPublic(name: string, rawArgs: unknown, scope: RequestScope): Promise<NormalizedToolResult> {
    const { record } = scope;
    if (record) record.tool = name;
    const pub = this.deps.publicTools.get(name);
    if (!pub) {
      const outcome = this.deps.catalog.has(name)
        ? errorOutcome(ErrorCode.TOOL_NOT_PUBLIC, `${name} is a deferred tool: call it through tool_call {calls:[{name:"${name}", arguments:{...}}]}`)
        : errorOutcome(ErrorCode.UNKNOWN_TOOL, `unknown tool "${name}"; tools/list shows the six public tools and tool_search finds the rest`);
      return this.answer(record, outcome);
    }
    if (pub.kind === 'tool') {
      const refused = this.authorize(scope, name, rawArgs);
      if (refused) return this.answer(record, refused, pub.entry.tool);
      return this.answer(record, await this.run(pub.entry, rawArgs, scope, this.resolveOwner(scope)), pub.entry.tool);
    }
    let call: DeferredCall;
    try {
      call = pub.tool.forward(pub.validate(rawArgs));
      if (scope.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'the request was cancelled before the tool started');
    } catch (e) {
      return this.answer(record, this.outcomeOfError(name, e));
    }
    return this.callDeferred(call, scope);
  }

  /** The one deferred tool a tool_call names: its result is the MCP result. Never throws. */
  async callDeferred(call: DeferredCall, scope: RequestScope): Promise<NormalizedToolResult> {
    const { record } = scope;
    const target = this.deps.catalog.get(call.name);
    if (!target) {
      return this.answer(record, errorOutcome(ErrorCode.UNKNOWN_TOOL, `"${call.name}" is not a tool in this gateway's catalog; use tool_search to find tools`));
    }
    if (record) record.target = call.name;
    const refused = this.authorize(scope, call.name, call.arguments);
    if (refused) return this.answer(record, refused, target.tool);
    let owner: Owner;
    try {
      // A tool authorized by its own credential (job_status, job_cancel) ignores session_token: an
      // unrelated expired session must never block recovery.
      owner = this.resolveOwner(scope, target.tool.credentialAuthorized ? undefined : call.sessionToken);
    } catch (e) {
      return this.answer(record, this.outcomeOfError(target.tool.name, e), target.tool);
    }
    return this.answer(record, await this.run(target, call.arguments, scope, owner), target.tool);
  }

  /** The scope check, beside tool_call: a call outside the credential's grant never reaches validation or its handler. */
  private authorize(scope: RequestScope, tool: string, args: unknown): ToolOutcome | undefined {
    try {
      assertScope(scope.grant, tool, args);
      return undefined;
    } catch (e) {
      return this.outcomeOfError(tool, e);
    }
  }

  /**
   * The owner of a call. Only a validated legacy session or a live capability token grants a durable
   * owner; a sessionless call without a token gets a fresh owner nobody else can ever present.
   */
  private resolveOwner(scope: RequestScope, sessionToken?: string): Owner {
    if (sessionToken !== undefined) {
      const record = this.deps.capabilities.resolve(sessionToken, scope.sessionId, scope.grant ? principalKey(scope.grant) : undefined);
      return { id: `cap:${record.id}`, kind: 'capability' };
    }
    if (scope.sessionId) return { id: `legacy:${scope.sessionId}`, kind: 'legacy' };
    return { id: `request:${randomUUID()}`, kind: 'request' };
  }

  /** A tool called from inside `parent` (same owner, signal and era). Never throws. */
  private async callNested(parent: CallContext, name: string, rawArgs: unknown): Promise<ToolOutcome> {
    const entry = this.deps.catalog.get(name);
    if (!entry) return errorOutcome(ErrorCode.UNKNOWN_TOOL, `"${name}" is not a tool in this gateway's catalog`);
    const scope: RequestScope = { era: parent.era, signal: parent.signal, ...(parent.sessionId ? { sessionId: parent.sessionId } : {}), ...(parent.grant ? { grant: parent.grant } : {}) };
    return this.run(entry, rawArgs, scope, parent.owner);
  }

  /** Validates and runs one catalogued tool for a resolved owner; every error becomes an outcome. */
  private async run(entry: CatalogEntry, rawArgs: unknown, scope: RequestScope, owner: Owner): Promise<ToolOutcome> {
    const { tool } = entry;
    try {
      const args = entry.validate(rawArgs);
      if (tool.requiresOwner && owner.kind === 'request') {
        throw new GatewayError(
          ErrorCode.OWNER_REQUIRED,
          `${tool.name} needs a durable owner: call session_open once and pass its token as tool_call.session_token (or use a legacy MCP session)`,
        );
      }
      if (scope.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'the request was cancelled before the tool started');
      const ctx: CallContext = {
        owner,
        signal: scope.signal,
        callId: randomUUID(),
        era: scope.era,
        ...(scope.sessionId ? { sessionId: scope.sessionId } : {}),
        ...(scope.grant ? { grant: scope.grant } : {}),
        callNested: (name, nestedArgs) => this.callNested(ctx, name, nestedArgs),
      };
      // Work a lease-holding handler leaves running past its answer stays counted under the same owner.
      if (tool.holdsLease) ctx.retain = (work) => void this.deps.owners.runLeased(owner.id, () => work).catch(() => {});
      const work = () => tool.handler(args, ctx);
      return tool.holdsLease ? await this.deps.owners.runLeased(owner.id, work) : await work();
    } catch (e) {
      return this.outcomeOfError(tool.name, e);
    }
  }

  /** A GatewayError keeps its code and message; anything else is logged here, once, and answered generically. */
  private outcomeOfError(toolName: string, e: unknown): ToolOutcome {
    if (isGatewayError(e)) return outcomeFromError(e);
    this.deps.onInternalError(toolName, e);
    return errorOutcome(ErrorCode.INTERNAL_ERROR, `${toolName} failed inside the gateway; see the gateway log for details`);
  }

  /** Records the call's category and normalises its outcome into the MCP result, once. */
  private async answer(record: RequestRecord | undefined, outcome: ToolOutcome, tool?: ToolDefinition): Promise<NormalizedToolResult> {
    if (record) record.category = categorize(outcome);
    const options = { maxChars: this.deps.limits.maxOutputChars, allowImages: tool?.returnsImages === true };
    try {
      return await normalizeOffloaded(outcome, options, this.deps.limits.offloadResultChars);
    } catch (e) {
      // The thread pool failing must not lose the answer: normalise inline instead.
      this.deps.onInternalError(`${tool?.name ?? 'result'}:normalize`, e);
      return normalizeResult(outcome, options);
    }
  }
}

function categorize(outcome: ToolOutcome): string {
  if (!outcome.isError) return 'ok';
  const code = outcome.structured?.error;
  return typeof code === 'string' ? `error:${code}` : 'error';
}
