import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { HermesToolDefinition, HermesToolResult, HermesToolsFailureCode, HermesToolsSettings } from '../../../shared/worker-protocol/hermes-tools.js';
import type { Limits } from '../../../shared/limits.js';
import { compileArgumentValidator } from '../../core/catalog/catalog.js';
import { ResidentWorker, WORKER_SLACK_MS } from '../../platform/spawning/resident-worker.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { hermesArgumentRepair, registryTypesOf } from '../../core/hermes-args.js';
import type { ContentBlock, ToolDefinition, ToolOutcome } from '../../core/tool-types.js';

// The tool server's tools as catalog entries: name, description and input schema exactly as its
// tools/list gave them at startup (frozen with the catalog; never written here), the annotations
// this gateway states for them, and a handler that is one tools/call on the tool server. Hermes'
// answer is passed through: a tool result is Hermes' JSON string in a text block, which becomes
// the structured result (and its JSON mirror) unchanged; the dispatcher redacts and caps it like
// any result. A failure of the tool server itself is one of the HERMES_TOOLS_* codes.
//
// A client that goes away cancels the call on the tool server (MCP notifications/cancelled,
// through the worker), which keeps serving the others; a call past its budget is cancelled the
// same way. The budget is the one named for the tool.

type Annotations = ToolDefinition['annotations'];

const READ_WEB = { readOnlyHint: true, destructiveHint: false, openWorldHint: true, idempotentHint: true } as const;

/** What each tool does to the world, as the tool's own Hermes description says it. */
const ANNOTATIONS: Record<string, Annotations> = {
  web_search: { ...READ_WEB, title: 'Search the web' },
  web_extract: { ...READ_WEB, title: 'Read web pages' },
  vision_analyze: { ...READ_WEB, idempotentHint: false, title: 'Look at an image' },
  video_analyze: { ...READ_WEB, idempotentHint: false, title: 'Look at a video' },
  // It writes the generated image (a file under $HERMES_HOME or a provider URL): not read-only.
  image_generate: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: false, title: 'Generate an image' },
};

/** The tools whose budget is the media one: an auxiliary model's download and inference, not a web read. */
const MEDIA_TOOLS: ReadonlySet<string> = new Set(['vision_analyze', 'video_analyze', 'image_generate']);

/**
 * The supervisor's handle on the Hermes tools worker (workers/hermes-tools-worker.ts): a resident
 * worker like the graph's (spawned on first use, replaced after it died, every request bounded),
 * configured with the tool server's command; its failures are the HERMES_TOOLS_* codes.
 */
export class HermesToolsWorker extends ResidentWorker<'hermes-tools-worker', HermesToolsFailureCode> {
  constructor(runtime: WorkerRuntime, settings: HermesToolsSettings, env: Record<string, string>, log: Logger) {
    super(runtime, 'hermes-tools-worker', { type: 'configure', ...settings }, env, log, {
      name: 'hermes_tools',
      what: 'Hermes tools worker',
      failedCode: 'HERMES_TOOLS_FAILED',
      timeoutCode: 'HERMES_TOOLS_TIMEOUT',
    });
  }
}

/** A budget other than the tool's own (the startup smoke calls'), with its limit's name. */
export type CallBudget = { name: 'hermesToolsWebSmokeTimeoutSeconds' };

export interface ToolServerCall {
  (name: string, args: Record<string, unknown>, budget?: CallBudget, signal?: AbortSignal): Promise<HermesToolResult>;
}

/** One tools/call on the tool server within the tool's budget; the tool server's failure as a GatewayError. */
export function toolServerCall(worker: HermesToolsWorker, limits: Limits): ToolServerCall {
  return async (name, args, budget, signal) => {
    const budgetName = budget?.name ?? (MEDIA_TOOLS.has(name) ? 'hermesToolsMediaTimeoutSeconds' : 'hermesToolsCallTimeoutSeconds');
    const timeoutMs = limits[budgetName] * 1000;
    if (signal?.aborted) throw cancelled(name);
    const callId = randomUUID();
    const request = worker.request({ type: 'call', callId, name, arguments: args, timeoutMs, budgetName }, timeoutMs + WORKER_SLACK_MS);
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        worker.notify({ type: 'cancel', callId });
        reject(cancelled(name));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    let reply: Awaited<typeof request>;
    try {
      reply = await Promise.race([request, aborted]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (reply.failure) throw new GatewayError(ErrorCode[reply.failure.code], reply.failure.message, { component: 'hermes_tools', retryable: reply.failure.code !== 'HERMES_TOOLS_NOT_INSTALLED' });
    if (!('result' in reply) || !reply.result) throw new GatewayError(ErrorCode.HERMES_TOOLS_FAILED, 'the Hermes tools worker answered without a result', { component: 'hermes_tools' });
    return reply.result;
  };
}

function cancelled(name: string): GatewayError {
  return new GatewayError(ErrorCode.CANCELLED, `the ${name} call was cancelled; Hermes' tool server was told to stop it`);
}

/**
 * The catalog entry for an upstream tool, or why it cannot be served. `$schema` is dropped: the
 * catalog validates every tool as JSON Schema 2020-12, the dialect MCP tool schemas default to.
 */
export function toolServerTool(upstream: HermesToolDefinition, call: ToolServerCall): ToolDefinition | { unusable: string } {
  const { $schema: _dialect, ...schema } = upstream.inputSchema;
  if (schema.type !== 'object') return { unusable: `its input schema is not an object schema (type ${JSON.stringify(schema.type)})` };
  const inputSchema = schema as ToolDefinition['inputSchema'];
  try {
    // The catalog compiles every schema when it freezes; one that does not compile would fail startup.
    compileArgumentValidator({ name: upstream.name, inputSchema });
  } catch (e) {
    return { unusable: `its input schema does not compile as JSON Schema 2020-12: ${(e as Error).message}` };
  }
  return {
    name: upstream.name,
    description: upstream.description,
    inputSchema,
    // Hermes' dispatch coercion (supervisor/core/hermes-args.ts) before the gateway's validation, so
    // a call Hermes' tool server would answer (`limit: "5"`) is not refused here first; against the
    // types Hermes' registry gives (registryTypesOf), which its dispatch coerces against.
    coerceArguments: hermesArgumentRepair(registryTypesOf(inputSchema)),
    annotations: ANNOTATIONS[upstream.name] ?? { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    ...(upstream.name === 'vision_analyze' ? { returnsImages: true } : {}),
    handler: async (args, ctx) => outcomeOf(await call(upstream.name, args, undefined, ctx.signal)),
  };
}

/**
 * Hermes' result value: the structuredContent object, else the JSON object in the one text block
 * (Hermes tools answer a JSON string), with the other blocks; no value when neither is there.
 * Hermes' tool server is FastMCP: a tool that returns a string (every Hermes tool: its JSON text)
 * comes back with structuredContent `{"result": "<that text>"}` — the wrapper, not Hermes' value,
 * which is the JSON inside it.
 */
export function resultValue(result: HermesToolResult): { value?: Record<string, unknown>; rest: ContentBlock[] } {
  const structured = unwrapped(result.structuredContent);
  if (isObject(structured)) return { value: structured, rest: result.content.filter((b) => b.type !== 'text') };
  const texts = result.content.filter((b) => b.type === 'text' && typeof b.text === 'string');
  if (texts.length === 1) {
    try {
      const parsed: unknown = JSON.parse(texts[0]!.text as string);
      if (isObject(parsed)) return { value: parsed, rest: result.content.filter((b) => b !== texts[0]) };
    } catch {
      // plain text: passed on as it is
    }
  }
  return { rest: result.content };
}

/** FastMCP's `{"result": "<json>"}` around a returned string, opened when the string is a JSON object; anything else as it is. */
function unwrapped(structured: unknown): unknown {
  if (!isObject(structured) || typeof structured.result !== 'string' || Object.keys(structured).length !== 1) return structured;
  try {
    const inner: unknown = JSON.parse(structured.result);
    return isObject(inner) ? inner : undefined;
  } catch {
    return undefined; // plain text in the wrapper: the text block carries it
  }
}

function outcomeOf(result: HermesToolResult): ToolOutcome {
  const { value, rest } = resultValue(result);
  return { ...(value ? { structured: value } : {}), ...(rest.length > 0 || !value ? { content: rest } : {}), ...(result.isError ? { isError: true } : {}) };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
