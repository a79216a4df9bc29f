import { ErrorCode, GatewayError, isGatewayError } from '../../shared/errors.js';
import { cpuTask, runOnCpuPool } from '../platform/thread-pool/pool.js';
import type normalizeTask from './normalize-task.js';
import { errorOutcome, normalizeResult, outcomeFromError, redactOutcome, type NormalizeOptions } from './result.js';
import type { CallContext, NormalizedToolResult, ToolDefinition, ToolOutcome } from './tool-types.js';
import type { ArgumentValidator } from './catalog/catalog.js';

// The one pipeline of a tool call, whoever serves it: the gateway's Dispatcher (core/dispatch.ts),
// hermes-mcp-lsp's stdio server (tools/lsp/stdio-server.ts) and the bridge profile
// (http/bridge-profile/profile-rpc.ts). Its steps, each done once and in this order:
//
//   validate the arguments (the tool's compiled schema; nothing has run yet)
//   -> the surface's own checks (owner, cancellation), then the handler, in the surface's frame
//      (an owner lease, in-flight accounting)
//   -> map what it throws to a stable code (a GatewayError keeps its own; anything else is logged
//      once and answered generically)
//   -> redact the result in the tool's mode (ToolDefinition.redaction)
//   -> categorise the outcome (the request log's category, a surface's own spelling of codes)
//   -> normalise it into the MCP result (cap, JSON mirror; the default redaction when the tool's
//      mode left it), on the thread pool when it is big.
//
// runTool is the first four (what a nested call gets back); answer the last two; callTool both.

/** A tool and its compiled argument validator (a catalog entry is one). */
export interface PipelineEntry {
  readonly tool: ToolDefinition;
  readonly validate: ArgumentValidator;
}

/** What differs between the surfaces that serve calls: how they log, word and normalise. */
export interface Surface {
  /** Logs an error that is not a GatewayError (the Error itself, so its stack is kept). */
  onInternalError(tool: string, error: unknown): void;
  /** What the caller is told instead of such an error. */
  internalErrorMessage(tool: string): string;
  /** The cap on one result (maxOutputChars). */
  maxChars: number;
  /** Outcomes above this many characters are normalised on the thread pool; absent: always inline. */
  offloadAboveChars?: number;
}

/** Where the pipeline stopped: a call refused by its arguments never reached the handler. */
export type Stage = 'validate' | 'run';

export interface CallFrame {
  /** Checks after validation, before the handler (OWNER_REQUIRED, CANCELLED): a throw is the call's error. */
  admit?(tool: ToolDefinition): void;
  /** The handler's context, made once the call is admitted. */
  context(tool: ToolDefinition): CallContext;
  /** Runs the handler (under its owner's lease, counted in flight); default: as it is. */
  around?(tool: ToolDefinition, work: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
  /** Sees the outcome before it is normalised: the log's category, a surface's spelling of codes. */
  categorise?(outcome: ToolOutcome, stage: Stage): void;
}

/** The outcome of one call and where it stopped. */
export interface RunResult {
  outcome: ToolOutcome;
  stage: Stage;
}

/** Validates and runs one tool, maps its errors and redacts its result in the tool's mode. Never throws. */
export async function runTool(entry: PipelineEntry, rawArgs: unknown, surface: Surface, frame: CallFrame): Promise<RunResult> {
  const { tool } = entry;
  let args: Record<string, unknown>;
  try {
    args = entry.validate(rawArgs);
  } catch (e) {
    return { outcome: outcomeOfError(surface, tool.name, e), stage: 'validate' };
  }
  try {
    frame.admit?.(tool);
    const ctx = frame.context(tool);
    const work = () => tool.handler(args, ctx);
    const outcome = frame.around ? await frame.around(tool, work) : await work();
    return { outcome: redactOutcome(tool.redaction, outcome, tool.afterRedaction), stage: 'run' };
  } catch (e) {
    return { outcome: outcomeOfError(surface, tool.name, e), stage: 'run' };
  }
}

/** The whole pipeline: runTool, then answer. Never throws. */
export async function callTool(entry: PipelineEntry, rawArgs: unknown, surface: Surface, frame: CallFrame): Promise<{ result: NormalizedToolResult; stage: Stage }> {
  const { outcome, stage } = await runTool(entry, rawArgs, surface, frame);
  frame.categorise?.(outcome, stage);
  return { result: await answer(outcome, surface, entry.tool), stage };
}

/** A GatewayError keeps its code and message; anything else is logged here, once, and answered generically. */
export function outcomeOfError(surface: Surface, toolName: string, e: unknown): ToolOutcome {
  if (isGatewayError(e)) return outcomeFromError(e);
  surface.onInternalError(toolName, e);
  return errorOutcome(ErrorCode.INTERNAL_ERROR, surface.internalErrorMessage(toolName));
}

/** The error a call gets when its request was cancelled before the tool started. */
export function cancelledBeforeStart(): GatewayError {
  return new GatewayError(ErrorCode.CANCELLED, 'the request was cancelled before the tool started');
}

/** The outcome normalised into the MCP result (a big one on the thread pool), once. Never throws. */
export async function answer(outcome: ToolOutcome, surface: Surface, tool?: ToolDefinition): Promise<NormalizedToolResult> {
  const options: NormalizeOptions = { maxChars: surface.maxChars, allowImages: tool?.returnsImages === true };
  if (surface.offloadAboveChars === undefined) return normalizeResult(outcome, options);
  try {
    return await normalizeOffloaded(outcome, options, surface.offloadAboveChars);
  } catch (e) {
    // The thread pool failing must not lose the answer: normalise inline instead.
    surface.onInternalError(`${tool?.name ?? 'result'}:normalize`, e);
    return normalizeResult(outcome, options);
  }
}

/** The category the request log records for an outcome: `ok`, `error:<CODE>` or `error`. */
export function categoryOf(outcome: ToolOutcome): string {
  if (!outcome.isError) return 'ok';
  const code = outcome.structured?.error;
  return typeof code === 'string' ? `error:${code}` : 'error';
}

// A big result is normalised (redacted, capped) on the supervisor's thread pool so the event loop
// never stalls on it; a small one inline, where the thread hop would cost more than the work.

const NORMALIZE = cpuTask<typeof normalizeTask>(new URL('./normalize-task.js', import.meta.url));

/**
 * Whether an outcome holds more than `limit` characters of text (what redaction will have to
 * scan): its strings and keys, counted until the limit is passed. Cheaper than serializing every
 * result just to measure it; quoting and punctuation are not counted, which only moves the
 * threshold by a few percent.
 */
function outcomeExceeds(outcome: ToolOutcome, limit: number): boolean {
  let n = 0;
  for (const block of outcome.content ?? []) if (typeof block.text === 'string') n += block.text.length;
  if (n > limit) return true;
  const stack: unknown[] = outcome.structured === undefined ? [] : [outcome.structured];
  // Every visit counts at least one character (brackets, commas), so even a cycle ends, and the
  // count is checked before each push, so a huge array or object costs no more than the limit.
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') n += value.length;
    else if (ArrayBuffer.isView(value)) n += value.byteLength;
    else if (Array.isArray(value)) {
      n += 2;
      for (const item of value) {
        if (++n > limit) return true;
        stack.push(item);
      }
    } else if (value !== null && typeof value === 'object') {
      n += 2;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        n += key.length + 1;
        if (n > limit) return true;
        stack.push((value as Record<string, unknown>)[key]);
      }
    } else n += 4; // numbers, booleans, null
    if (n > limit) return true;
  }
  return false;
}

/** normalizeResult, on a pool thread for outcomes above `offloadAboveChars` (a thread hop costs more than a small one). */
export async function normalizeOffloaded(outcome: ToolOutcome, options: NormalizeOptions, offloadAboveChars: number): Promise<NormalizedToolResult> {
  if (!outcomeExceeds(outcome, offloadAboveChars)) return normalizeResult(outcome, options);
  return runOnCpuPool(NORMALIZE, { outcome, options });
}
