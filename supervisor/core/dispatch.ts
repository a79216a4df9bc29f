import { randomUUID } from 'node:crypto';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import type { Limits } from '../../shared/limits.js';
import { errorOutcome } from './result.js';
import type { CallContext, NormalizedToolResult, Owner, ToolDefinition, ToolOutcome } from './tool-types.js';
import { compileArgumentValidator, type Catalog, type CatalogEntry } from './catalog/catalog.js';
import { answer, callTool, cancelledBeforeStart, categoryOf, outcomeOfError, runTool, type CallFrame, type Surface } from './pipeline.js';
import type { CallHook } from './adapter.js';
import type { CapabilityStore, OwnerRegistry } from './owners/owners.js';
import type { RequestRecord } from '../platform/telemetry.js';
import { assertScope, principalKey, type Grant } from './scopes.js';
import { isJsonObject } from '../platform/json-object.js';

// The gateway's surface of the tool pipeline (core/pipeline.ts): target resolution, owner
// resolution, the scope check and the owner lease around the pipeline's steps. A reader follows
// any tool from its schema (the source file) through here to its handler. There are three ways in:
//   - callPublic: tools/call of one of the six public tools; tool_call is unwrapped here, into
//     the one deferred call it names (callDeferred);
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

/** One deferred tool call, as tool_call names it. */
export interface DeferredCall {
  name: string;
  arguments: unknown;
  /** tool_call.session_token: the capability session the call acts for. */
  sessionToken?: string;
}

/**
 * tool_call: a public tool with no handler of its own. Its arguments name exactly one deferred
 * tool, which the Dispatcher runs; its answer is that tool's result, normalised once.
 */
export const TOOL_CALL: Pick<ToolDefinition, 'name' | 'description' | 'inputSchema' | 'annotations'> = {
  name: 'tool_call',
  description:
    'Call exactly one deferred tool found with tool_search/tool_describe: {calls:[{name, arguments}]}. Its arguments are validated against the schema tool_describe returned before anything runs. Pass session_token (from session_open) for tools that need continuity (terminal cwd/env, processes, browser, jobs).',
  inputSchema: {
    type: 'object',
    properties: {
      calls: {
        type: 'array',
        minItems: 1,
        maxItems: 1,
        items: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 }, arguments: { type: 'object' } },
          required: ['name'],
          additionalProperties: false,
        },
      },
      session_token: { type: 'string', minLength: 1, maxLength: 256 },
    },
    required: ['calls'],
    additionalProperties: false,
  },
  // tool_call can reach write tools, so it must not claim to be read-only (ChatGPT confirms
  // write tools with the user); openWorld because targets include web and browser tools.
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
};

export class Dispatcher {
  private readonly surface: Surface;
  private readonly validateToolCall = compileArgumentValidator(TOOL_CALL);

  constructor(
    private readonly deps: {
      catalog: Catalog;
      /** The public tools other than tool_call, by name. */
      publicTools: ReadonlyMap<string, CatalogEntry>;
      owners: OwnerRegistry;
      capabilities: CapabilityStore;
      limits: Limits;
      onInternalError: (tool: string, error: unknown) => void;
      /** The adapters' call hooks (Adapter.callHook), told of each catalogued tool's call before it runs. */
      callHooks?: readonly CallHook[];
    },
  ) {
    this.surface = {
      onInternalError: deps.onInternalError,
      internalErrorMessage: (tool) => `${tool} failed inside the gateway; see the gateway log for details`,
      maxChars: deps.limits.maxOutputChars,
      offloadAboveChars: deps.limits.offloadResultChars,
    };
  }

  /** tools/call on the MCP endpoint: only the six public tools are callable directly. Never throws. */
  async callPublic(name: string, rawArgs: unknown, scope: RequestScope): Promise<NormalizedToolResult> {
    const { record } = scope;
    if (record) record.tool = name;
    if (name === TOOL_CALL.name) {
      let call: DeferredCall;
      try {
        call = unwrapToolCall(withPlacementHints(this.validateToolCall, rawArgs, TOOL_CALL));
        if (scope.signal.aborted) throw cancelledBeforeStart();
      } catch (e) {
        return this.answer(record, outcomeOfError(this.surface, name, e));
      }
      return this.callDeferred(call, scope);
    }
    const entry = this.deps.publicTools.get(name);
    if (!entry) {
      const hidden = this.deps.catalog.get(name)?.tool;
      const outcome = hidden
        ? errorOutcome(ErrorCode.TOOL_NOT_PUBLIC, notPublicMessage(hidden))
        : errorOutcome(ErrorCode.UNKNOWN_TOOL, `unknown tool "${name}"; tools/list shows the six public tools and tool_search finds the rest`);
      return this.answer(record, outcome);
    }
    return this.call(entry, rawArgs, scope, () => this.resolveOwner(scope));
  }

  /** The one deferred tool a tool_call names: its result is the MCP result. Never throws. */
  async callDeferred(call: DeferredCall, scope: RequestScope): Promise<NormalizedToolResult> {
    const { record } = scope;
    const target = this.deps.catalog.get(call.name);
    if (!target) {
      return this.answer(record, errorOutcome(ErrorCode.UNKNOWN_TOOL, `"${call.name}" is not a tool in this gateway's catalog; use tool_search to find tools`));
    }
    if (record) record.target = call.name;
    // A tool authorized by its own credential (job_status, job_cancel) ignores session_token: an
    // unrelated expired session must never block recovery.
    return this.call(target, call.arguments, scope, () => this.resolveOwner(scope, target.tool.credentialAuthorized ? undefined : call.sessionToken));
  }

  /** The scope check, then the owner, then the pipeline; each refusal answered as the call's result. */
  private async call(catalogued: CatalogEntry, rawArgs: unknown, scope: RequestScope, owner: () => Owner): Promise<NormalizedToolResult> {
    const { tool } = catalogued;
    // Arguments refused for a property that belongs elsewhere in the request say where it goes.
    const entry = { tool, validate: (args: unknown) => withPlacementHints(catalogued.validate, args, tool) };
    let resolved: Owner;
    try {
      // The scope check (authentication on: a grant): a call outside the credential's grant never
      // reaches validation or its handler.
      if (scope.grant) assertScope(scope.grant, tool.name, rawArgs);
      resolved = owner();
    } catch (e) {
      return this.answer(scope.record, outcomeOfError(this.surface, tool.name, e), tool);
    }
    const { record } = scope;
    const frame = this.frame(scope, resolved);
    if (record) frame.categorise = (outcome) => void (record.category = categoryOf(outcome));
    return (await callTool(entry, rawArgs, this.surface, frame)).result;
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
    return (await runTool(entry, rawArgs, this.surface, this.frame(scope, parent.owner))).outcome;
  }

  /** The gateway's frame around a handler: the owner check, its context, its owner's lease. */
  private frame(scope: RequestScope, owner: Owner): CallFrame {
    const { owners } = this.deps;
    return {
      admit(tool) {
        if (tool.requiresOwner && owner.kind === 'request') {
          throw new GatewayError(
            ErrorCode.OWNER_REQUIRED,
            `${tool.name} needs a durable owner: call session_open once and pass its token as tool_call.session_token (or use a legacy MCP session)`,
          );
        }
        if (scope.signal.aborted) throw cancelledBeforeStart();
      },
      context: (tool) => {
        const ctx: CallContext = {
          owner,
          signal: scope.signal,
          callId: randomUUID(),
          era: scope.era,
          ...(scope.sessionId ? { sessionId: scope.sessionId } : {}),
          ...(scope.grant ? { grant: scope.grant } : {}),
          callNested: (name, nestedArgs) => this.callNested(ctx, name, nestedArgs),
        };
        // The adapters hear of each catalogued tool's call (the discovery tools are the gateway's own, not a task's calls).
        if (this.deps.callHooks?.length && this.deps.catalog.has(tool.name)) for (const hook of this.deps.callHooks) hook(tool.name, ctx);
        // Work a lease-holding handler leaves running past its answer stays counted under the same owner.
        if (tool.holdsLease) ctx.retain = (work) => void owners.runLeased(owner.id, () => work).catch(() => {});
        return ctx;
      },
      around: (tool, work) => (tool.holdsLease ? owners.runLeased(owner.id, work) : work()),
    };
  }

  /** A refusal before the pipeline: recorded and normalised like any outcome. */
  private answer(record: RequestRecord | undefined, outcome: ToolOutcome, tool?: ToolDefinition): Promise<NormalizedToolResult> {
    if (record) record.category = categoryOf(outcome);
    return answer(outcome, this.surface, tool);
  }
}

/**
 * Properties a client puts inside a tool's arguments that belong elsewhere in the request, and where
 * they go: a session token is tool_call's own argument beside `calls`; `_meta` is the MCP request's,
 * in `params` beside `name` and `arguments` (the sessionless era's protocol version and capabilities).
 */
const MISPLACED: Readonly<Record<string, string>> = {
  session_token:
    'session_token goes in tool_call\'s own arguments, beside calls, not inside a call or its arguments: {"calls":[{"name":"<tool>","arguments":{...}}],"session_token":"<from session_open>"}',
  _meta: '_meta goes in the tools/call request\'s params, beside name and arguments, not inside arguments: {"name":"tool_call","arguments":{...},"_meta":{...}}',
};

/** The misplaced properties `args` holds where `schema` does not declare them. */
function misplacedIn(args: unknown, schema: unknown): string[] {
  if (!isJsonObject(args)) return [];
  const declared = isJsonObject(schema) && isJsonObject(schema.properties) ? schema.properties : {};
  return Object.keys(MISPLACED).filter((key) => Object.hasOwn(args, key) && !Object.hasOwn(declared, key));
}

/**
 * `validate(args)`; when it refuses arguments that hold a misplaced property (MISPLACED), the
 * refusal (INVALID_ARGUMENTS, its message as it was) also says where that property goes. tool_call's
 * own calls are looked into too: a session_token inside `calls[0]` is the same mistake.
 */
function withPlacementHints(validate: (args: unknown) => Record<string, unknown>, args: unknown, tool: Pick<ToolDefinition, 'name' | 'inputSchema'>): Record<string, unknown> {
  try {
    return validate(args);
  } catch (e) {
    if (!(e instanceof GatewayError) || e.code !== ErrorCode.INVALID_ARGUMENTS) throw e;
    const found = misplacedIn(args, tool.inputSchema);
    if (tool.name === TOOL_CALL.name && isJsonObject(args) && Array.isArray(args.calls)) {
      for (const call of args.calls) found.push(...misplacedIn(call, {}));
    }
    if (found.length === 0) throw e;
    const hints = [...new Set(found)].map((key) => MISPLACED[key]!);
    throw new GatewayError(e.code, `${e.message}. ${hints.join('. ')}`, e.details);
  }
}

/** TOOL_NOT_PUBLIC: the tool_call that reaches the deferred tool instead, with a session token when it needs an owner. */
function notPublicMessage(tool: Pick<ToolDefinition, 'name' | 'requiresOwner'>): string {
  const call = `{"calls":[{"name":"${tool.name}","arguments":{...}}]${tool.requiresOwner ? ',"session_token":"<from session_open>"' : ''}}`;
  const session = tool.requiresOwner ? `; ${tool.name} needs a session: call session_open through tool_call first for the token (or keep one 2025-era MCP session)` : '';
  return `${tool.name} is a deferred tool: call it through tool_call (tools/call name "tool_call", arguments ${call})${session}`;
}

/** tool_call's validated arguments as the one deferred call they name. */
function unwrapToolCall(args: Record<string, unknown>): DeferredCall {
  const call = (args.calls as Array<{ name: string; arguments?: Record<string, unknown> }>)[0]!;
  const token = args.session_token as string | undefined;
  return { name: call.name, arguments: call.arguments ?? {}, ...(token === undefined ? {} : { sessionToken: token }) };
}
