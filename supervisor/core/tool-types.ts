// What every tool source speaks: a tool definition, the per-call context, and the raw outcome a
// handler returns before the gateway normalises it (redaction, caps, mirroring) into an MCP result.

import type { Grant } from './scopes.js';

type JsonSchema = Record<string, unknown> & { type: 'object' };

/** Where a tool comes from. A catalog source registers its tools under exactly one of these. */
/** `embedded`: tools an embedding application adds through startGateway's `adapters`. */
export type SourceName = 'native' | 'hermes' | 'guarded' | 'memory' | 'graph' | 'lsp' | 'jobs' | 'gateway' | 'embedded' | 'agents' | 'browser';

interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
  idempotentHint?: boolean;
  title?: string;
}

/** Who a call acts for. Ownership is only ever derived by the gateway, never from caller input. */
export interface Owner {
  /** Stable id for the life of the owner: `legacy:<session>`, `cap:<id>` or `request:<uuid>`. */
  id: string;
  kind: 'legacy' | 'capability' | 'request';
}

export interface CallContext {
  owner: Owner;
  /** Aborted when the client disconnects (modern era) or its session closes. */
  signal: AbortSignal;
  /** Generated per call; distinguishes concurrent executions, never grants ownership. */
  callId: string;
  era: 'legacy' | 'modern';
  /** The validated legacy MCP session this call arrived on, if any. */
  sessionId?: string;
  /** The credential's grant when authentication is on (what session_open binds its token to). */
  grant?: Grant;
  /**
   * Set for `holdsLease` tools only: keeps this call counted in /healthz `inflight_native_calls`, and its
   * owner's lease held, until `work` settles, even after the handler has answered (an upstream
   * request that outlived the tool's time budget is still running). Call it before returning.
   */
  retain?: (work: Promise<unknown>) => void;
  /**
   * Runs another catalogued tool as part of this call, for the same owner, signal and era (an
   * execute_code script's hermes_tools file calls). The Dispatcher validates, runs and maps errors
   * as for any call, and logs an internal error there; the outcome is not normalised into an MCP
   * result: the caller shapes it for its own client.
   */
  callNested(name: string, rawArgs: unknown): Promise<ToolOutcome>;
}

export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

/** What a handler returns. `structured` becomes structuredContent (and its JSON text mirror). */
export interface ToolOutcome {
  structured?: Record<string, unknown>;
  content?: ContentBlock[];
  isError?: boolean;
  /**
   * For a `file-read` tool (ToolDefinition.redaction): the file is secret-bearing by its path (a
   * shell rc, an `.env`-type file), so its content also gets the assignment passes (Hermes'
   * `secret_file=True`). A fact about the result, read by the pipeline's redaction, never sent.
   */
  secretFile?: boolean;
  /**
   * For a `file-search` tool: the paths, as `matches` names them, of the secret-bearing files whose
   * lines the matches quote, so those matches also get the assignment passes (Hermes classifies
   * every hit's path). A fact about the result, read by the pipeline's redaction, never sent.
   */
  secretFiles?: readonly string[];
  /**
   * Set by the pipeline (supervisor/core/result.ts redactOutcome) once every string of
   * `structured` is redacted in its tool's mode, so normalizeResult does not redact `structured`
   * again in the default mode (which would run the assignment passes that mode skips and mask code
   * assignments; `output` only for a tool with `afterRedaction`). Never set by a handler. `content` blocks are redacted as always.
   */
  redacted?: ResultRedaction;
  /**
   * Styled twins (core/styled.ts styledTwin) of top-level string fields of `structured`, by field:
   * the same text with its colours, for the result view. Sent in the result's `_meta` only where a
   * twin's visible text is the field exactly as the client receives it; never seen by the model.
   * Not redacted itself (the check against the redacted field is what keeps secrets out): anything
   * that passes an outcome on must drop it or go through normalizeResult's check.
   */
  styled?: Record<string, string>;
}

/**
 * How the pipeline redacts a tool's `structured` result, once, in the mode Hermes' agent/redact.py
 * uses for it (supervisor/core/result.ts redactOutcome):
 * - `output` (the default): every string as tool output (`redact_sensitive_text`), when the result
 *   is normalised for an MCP client;
 * - `code-file`: every string as code (`code_file=True`): execute_code's stdout and stderr;
 * - `file-read`: every string as file content handed to the agent (`file_read=True`; with
 *   `secret_file=True` when the outcome says `secretFile`): read_file;
 * - `file-search`: `file-read` for every string, a match (an element of `matches`) of a file the
 *   outcome names in `secretFiles` with `secret_file=True`: search_files;
 * - `command-output`: a command's output (marked by the handler with commandOutput(), core/result.ts)
 *   as `redact_terminal_output` shows it (the ENV pass only when the command prints the
 *   environment), every other string as code: terminal, process_manage.
 * Every mode but `output` is applied as soon as the handler returns, so a nested call (execute_code's
 * hermes_tools) gets the same redacted value. A command's output kept beyond its call (a job's
 * receipt tail) is redacted as it is stored, by `storedCommandOutput` (core/result.ts), in the
 * `command-output` mode's rule for command output.
 */
export type ResultRedaction = 'output' | 'code-file' | 'file-read' | 'file-search' | 'command-output';

/** An MCP CallToolResult as the gateway emits it. */
export interface NormalizedToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** The styled twins that survived normalisation (core/styled.ts), for the result view. */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /**
   * True when the tool only makes sense for a durable owner (legacy session or capability token);
   * a sessionless request without a token is refused with OWNER_REQUIRED before the handler runs.
   */
  requiresOwner?: boolean;
  /**
   * True when the handler starts work that may outlive its answer (processes, workers, upstream
   * mutations): the call holds its owner's lease until that work settles, even after the HTTP
   * waiter is gone, and is counted meanwhile in /healthz `inflight_native_calls` (the name the
   * deployment's restart check reads).
   */
  holdsLease?: boolean;
  /**
   * True when the tool authorizes by a credential in its own arguments (a job's recovery token):
   * the session_token passed to tool_call is then not resolved, so an unrelated expired or revoked
   * session cannot block it.
   */
  credentialAuthorized?: boolean;
  /**
   * True when every call is refused by design (the tool is catalogued so that agents that know its
   * name get a refusal saying what to use instead): tool_search ranks it below the tools that work.
   */
  alwaysRefused?: boolean;
  /** True for tools whose image content is the point (vision); other tools' images become markers. */
  returnsImages?: boolean;
  /** How the pipeline redacts this tool's result (ResultRedaction); default `output`. */
  redaction?: ResultRedaction;
  /**
   * What only the redacted result can say, run by the pipeline on a successful `structured` result
   * right after redacting it (at once, in any mode): given the redacted `structured` and the
   * handler's own, returns the `structured` to send. A whole-or-nothing size budget of what the
   * client receives (a GatewayError thrown here is the call's answer), or a flag saying redaction
   * changed a file's text.
   */
  afterRedaction?: (redacted: Record<string, unknown>, raw: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Repairs arguments before they are validated against `inputSchema`, as the Hermes function the
   * tool mirrors repairs them (a numeric string for an integer, an offset below 1 clamped). Given a
   * copy of the call's arguments object; returns the arguments to validate. What it leaves alone is
   * validated as sent, so input Hermes cannot use either keeps its stable error code.
   */
  coerceArguments?(args: Record<string, unknown>): Record<string, unknown>;
  handler(args: Record<string, unknown>, ctx: CallContext): Promise<ToolOutcome>;
}

/** A catalog source: one adapter contributing tools (and, usually, a readiness probe). */
export interface ToolSource {
  name: SourceName;
  /**
   * `catalogued`: whether a source asked earlier catalogued a tool (Hermes' tool server's come
   * before the native, browser and other sources), so a description names only tools this gateway
   * serves.
   */
  tools(catalogued: (name: string) => boolean): ToolDefinition[] | Promise<ToolDefinition[]>;
  /**
   * False when this source's backend is not configured in this process (settings are read once at
   * start): its tools stay catalogued, their refusals saying what to configure, and tool_search
   * ranks them below every tool that can run here. Default true.
   */
  configured?: boolean;
}
