import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { Limits } from '../../../shared/limits.js';
import { errorOutcome } from '../../core/result.js';
import type { CallContext, ToolOutcome } from '../../core/tool-types.js';
import { describeFailure, honchoStatus, toGatewayError, type HonchoBackend, type Prepared } from './honcho.js';
import { MutationLedger } from './ledger.js';

// How a memory tool talks to Honcho: every call within its time budget (memoryTimeoutSeconds) and
// counted until its request really ends (ctx.retain); reads answer MEMORY_TIMEOUT when they run
// out, mutations that were already sent answer `state: unknown`, go into the ledger and are never
// re-sent.

export type MemoryState =
  | { kind: 'configured'; backend: HonchoBackend }
  | { kind: 'not_configured'; reason: string }
  | { kind: 'invalid'; reason: string };

export interface MemoryToolDeps {
  state: MemoryState;
  limits: Limits;
  ledger: MutationLedger;
  log: Logger;
}

const TIMED_OUT = Symbol('timed out');

function backendOf(deps: MemoryToolDeps): HonchoBackend {
  if (deps.state.kind === 'not_configured') throw new GatewayError(ErrorCode.MEMORY_NOT_CONFIGURED, deps.state.reason);
  if (deps.state.kind === 'invalid') throw new GatewayError(ErrorCode.MEMORY_CONFIG_INVALID, deps.state.reason);
  return deps.state.backend;
}

/**
 * Waits for `work` at most `ms`. On timeout the work keeps running and stays counted (ctx.retain);
 * its eventual rejection is observed there, so nothing is left unhandled.
 */
export async function budgeted<T>(work: Promise<T>, ms: number, ctx: CallContext): Promise<T | typeof TIMED_OUT> {
  const settled = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([settled, new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))]);
  clearTimeout(timer);
  if (outcome === TIMED_OUT) {
    ctx.retain?.(settled);
    return TIMED_OUT;
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

export function checkQuery(query: unknown, limits: Limits, name = 'query'): string | undefined {
  if (query === undefined) return undefined;
  const text = String(query);
  if (text.length > limits.memoryQueryMaxChars) {
    throw new GatewayError(ErrorCode.MEMORY_QUERY_TOO_LARGE, `${name} is ${text.length} characters; memory tools accept at most ${limits.memoryQueryMaxChars}`, {
      max_chars: limits.memoryQueryMaxChars,
    });
  }
  if (text.trim() === '') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `${name} must not be blank`);
  return text;
}

/** A read: prepared peers, then `fn`, within the tool budget. */
export async function read<T>(deps: MemoryToolDeps, ctx: CallContext, fn: (p: Prepared) => Promise<T>): Promise<T> {
  const backend = backendOf(deps);
  const seconds = deps.limits.memoryTimeoutSeconds;
  let result: T | typeof TIMED_OUT;
  try {
    result = await budgeted(backend.prepare().then(fn), seconds * 1000, ctx);
  } catch (e) {
    throw toGatewayError(e, backend.settings.baseURL);
  }
  if (result === TIMED_OUT) {
    throw new GatewayError(
      ErrorCode.MEMORY_TIMEOUT,
      `Honcho did not answer within ${seconds} s; nothing was changed (reads are safe to retry later). The request stays counted until it ends.`,
      { timeout_seconds: seconds },
    );
  }
  return result;
}

interface MutationSpec<T> {
  key: string;
  operation: 'create' | 'delete';
  kind?: string;
  content_sha256?: string;
  id?: string;
  /** Runs before anything is sent (within the same budget); a throw means nothing was sent. */
  precheck?(p: Prepared): Promise<void>;
  send(p: Prepared): Promise<T>;
  /** The id Honcho gave the created conclusion, for the ledger. */
  resultId?(value: T): string | undefined;
}

/** `running`: the request is still in flight (timed out at the budget) rather than ended unconfirmed. */
export type MutationResult<T> = { state: 'done'; value: T } | { state: 'unknown'; running: boolean };

export async function mutate<T>(deps: MemoryToolDeps, ctx: CallContext, spec: MutationSpec<T>): Promise<MutationResult<T>> {
  const backend = backendOf(deps);
  const { ledger, log, limits } = deps;
  const seconds = limits.memoryTimeoutSeconds;
  const ref = { operation: spec.operation, ...(spec.kind ? { kind: spec.kind } : {}), ...(spec.content_sha256 ? { content_sha256: spec.content_sha256 } : {}), ...(spec.id ? { id: spec.id } : {}) };
  const earlier = ledger.get(spec.key);
  if (earlier) {
    throw new GatewayError(
      ErrorCode.MEMORY_MUTATION_PENDING,
      earlier.ended_at
        ? `an identical memory ${spec.operation} was sent at ${earlier.started_at} and ended without Honcho's confirmation (outcome unknown); it is not sent again before ${new Date(earlier.hold_until!).toISOString()}. Reconcile with memory_conclude {"action":"list"} (unresolved) first.`
        : `an identical memory ${spec.operation} is still running (started ${earlier.started_at}${earlier.unknown ? ', outcome unknown' : ''}); it is not sent again. Check memory_conclude {"action":"list"} once it has settled.`,
      { ...ref, state: earlier.unknown ? 'unknown' : 'running', ...(earlier.ended_at ? { request: 'ended', duplicate_guard_until: new Date(earlier.hold_until!).toISOString() } : {}) },
    );
  }
  ledger.begin({ key: spec.key, ...ref });
  const holdMs = limits.memoryWorkerMaxSeconds * 1000;
  let sent = false;
  let abandoned = false;
  const work = backend.prepare().then(async (p) => {
    if (spec.precheck) await spec.precheck(p);
    // The budget ran out before the mutation left the gateway: it never will.
    if (abandoned) throw new GatewayError(ErrorCode.MEMORY_TIMEOUT, 'abandoned before sending');
    sent = true;
    return spec.send(p);
  });
  // The ledger bookkeeping for every way the worker can end; the call's answer below reads the same
  // classification (unconfirmed), so every `state: unknown` answer is recorded as unresolved.
  work.then(
    (value) => {
      const late = ledger.settle(spec.key, { outcome: 'applied', ...(spec.resultId?.(value) ? { id: spec.resultId(value)! } : {}) });
      if (late) log.warn({ event: 'memory_mutation_settled', ...late }, 'a memory mutation that had answered unknown finished');
    },
    (e: unknown) => {
      const error = describeFailure(e, backend.settings.baseURL);
      if (unconfirmed(e, sent)) {
        const late = ledger.endUnconfirmed(spec.key, error, holdMs);
        if (late) log.warn({ event: 'memory_mutation_ended_unconfirmed', ...ref, error }, 'a memory mutation that had answered unknown ended without confirmation; still unresolved');
        return;
      }
      const late = ledger.settle(spec.key, { outcome: 'failed', error });
      if (late) log.warn({ event: 'memory_mutation_settled', ...late }, 'a memory mutation that had answered unknown failed');
    },
  );
  let result: T | typeof TIMED_OUT;
  try {
    result = await budgeted(work, seconds * 1000, ctx);
  } catch (e) {
    if (!sent) {
      if (e instanceof GatewayError) throw withState(e, 'not_sent');
      throw withState(toGatewayError(e, backend.settings.baseURL), 'not_sent');
    }
    // Honcho answered with a refusal: nothing was written.
    if (!unconfirmed(e, sent)) throw withState(toGatewayError(e, backend.settings.baseURL), 'failed');
    // A timeout, a dropped connection or a server error after sending: it may have been applied.
    // The rejection handler above (registered first, so it already ran) recorded it as unresolved.
    log.warn({ event: 'memory_mutation_unknown', ...ref, reason: describeFailure(e, backend.settings.baseURL) }, 'memory mutation ended unconfirmed; outcome unknown');
    return { state: 'unknown', running: false };
  }
  if (result === TIMED_OUT) {
    if (!sent) {
      abandoned = true;
      throw new GatewayError(ErrorCode.MEMORY_TIMEOUT, `Honcho did not answer within ${seconds} s while preparing the ${spec.operation}; it was not sent and never will be.`, {
        ...ref,
        state: 'not_sent',
        timeout_seconds: seconds,
      });
    }
    ledger.markUnknown(spec.key);
    log.warn({ event: 'memory_mutation_unknown', ...ref, timeout_seconds: seconds }, 'memory mutation timed out; outcome unknown');
    return { state: 'unknown', running: true };
  }
  return { state: 'done', value: result };
}

/** A failure after sending that is not Honcho's refusal (4xx): the mutation may have been applied. */
export function unconfirmed(e: unknown, sent: boolean): boolean {
  if (!sent) return false;
  const status = honchoStatus(e);
  return !(status !== undefined && status >= 400 && status < 500);
}

function withState(e: GatewayError, state: string): GatewayError {
  return new GatewayError(e.code, e.message, { ...(e.details ?? {}), state });
}

export function unknownOutcome(operation: 'create' | 'delete', limits: Limits, running: boolean, ref: Record<string, unknown>): ToolOutcome {
  const seconds = limits.memoryTimeoutSeconds;
  const holdSeconds = limits.memoryWorkerMaxSeconds;
  const what = operation === 'create' ? 'The conclusion may or may not have been written' : 'The conclusion may or may not have been deleted';
  const why = running
    ? `Honcho did not confirm the ${operation} within ${seconds} s. ${what}: the request is still running and counted until it ends, and the gateway will not send it again. Do not retry it; reconcile with memory_conclude {"action":"list"} (its unresolved and late_outcomes fields show how it ended).`
    : `The ${operation} was sent but ended without Honcho's confirmation (a server error or a dropped connection). ${what}; the gateway will not send it again, and refuses an identical ${operation} for the next ${holdSeconds} s. Do not retry it blindly; reconcile with memory_conclude {"action":"list"} first (its unresolved field lists it with the error).`;
  return errorOutcome(ErrorCode.MEMORY_OUTCOME_UNKNOWN, why, { state: 'unknown', operation, ...ref });
}

// ---------------------------------------------------------------------------------------------
// Tools

