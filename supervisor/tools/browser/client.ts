import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { monotonicMs } from '../../../shared/clock.js';

// A small HTTP client for Camofox' REST API (jo-inc/camofox-browser server.js), as Hermes'
// tools/browser_camofox.py calls it: JSON bodies, `Authorization: Bearer $CAMOFOX_API_KEY` when a
// key is set, and the calling tool's one time budget (shared by all its requests). Every request is
// bounded by what is left of that budget and by the caller's signal, so a Camofox that is down or
// hangs becomes an error naming Camofox, never a hang.
// Non-2xx answers are returned, not thrown: what a 404 means depends on the tool (camofoxFailure).

export interface CamofoxReply {
  status: number;
  /** The parsed body when Camofox answered JSON. */
  json?: Record<string, unknown>;
  /** The raw body otherwise (a screenshot's PNG bytes, Express' plain 404 page). */
  bytes?: Buffer;
}

/**
 * One tool call's time budget, shared by every request (and DNS lookup) the call makes: a scroll's
 * five steps or a navigation's stale-tab retry, new tab and snapshot end together within it.
 */
export interface CallBudget {
  endsAt: number;
  ms: number;
  /** The setting it comes from, for messages. */
  name: string;
}

export function callBudget(ms: number, name: string): CallBudget {
  return { endsAt: monotonicMs() + ms, ms, name };
}

export function remainingMs(budget: CallBudget): number {
  return Math.max(0, budget.endsAt - monotonicMs());
}

interface RequestOptions {
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  budget: CallBudget;
  /** The call's own signal (client gone, session closed). */
  signal?: AbortSignal;
}

export class CamofoxClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey?: string,
  ) {}

  async request(method: 'GET' | 'POST' | 'DELETE', path: string, options: RequestOptions): Promise<CamofoxReply> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (options.body) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(remainingMs(options.budget));
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const what = `${method} ${path}`;
    try {
      const res = await fetch(url, { method, headers, body: options.body ? JSON.stringify(options.body) : undefined, signal, redirect: 'error' });
      // The body read is bounded by the same signal.
      const bytes = Buffer.from(await res.arrayBuffer());
      if ((res.headers.get('content-type') ?? '').includes('application/json')) {
        try {
          const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { status: res.status, json: parsed as Record<string, unknown> };
        } catch {
          // not JSON after all: keep the bytes
        }
      }
      return { status: res.status, bytes };
    } catch (e) {
      if (options.signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, `the call was cancelled while Camofox ran ${what}`);
      if (timeout.aborted) throw budgetSpent(this.baseUrl, options.budget, `answer ${what}`);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new GatewayError(
        ErrorCode.BROWSER_UNAVAILABLE,
        `Camofox is not reachable at ${this.baseUrl} (${cause?.code ?? cause?.message ?? (e as Error).message}): start the Camofox browser server, or point CAMOFOX_URL at it`,
        { component: 'camofox', retryable: true },
      );
    }
  }
}

/** The call's budget ran out while Camofox was doing `what` (`answer POST /tabs`). */
export function budgetSpent(baseUrl: string, budget: CallBudget, what: string): GatewayError {
  return new GatewayError(
    ErrorCode.BROWSER_TIMEOUT,
    `Camofox at ${baseUrl} did not ${what} within the call's ${budget.ms / 1000} s (${budget.name}): it may be overloaded or its browser hung; retry, or check the Camofox server`,
    { component: 'camofox', retryable: true },
  );
}

/** Camofox' error message from a non-2xx reply (its `{error}` body, else a short plain-text excerpt). */
export function camofoxMessage(reply: CamofoxReply): string {
  const error = reply.json?.error;
  if (typeof error === 'string' && error !== '') return error;
  const plain = reply.bytes?.toString('utf8').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim() ?? '';
  return plain.slice(0, 200) || 'no error message';
}

/** True when the reply says the bound tab is gone: 404 (closed, reaped) or 410 (browser restarted, page crashed). */
export function isStaleTab(reply: CamofoxReply): boolean {
  return reply.status === 410 || (reply.status === 404 && /tab not found/i.test(camofoxMessage(reply)));
}

export function staleTabError(): GatewayError {
  // Never the upstream status: the caller only needs to know the tab is gone and what to do.
  return new GatewayError(
    ErrorCode.STALE_TAB,
    'the browser tab this session was using is gone (closed, timed out, or lost when the browser restarted); call browser_navigate to open the page again in a fresh tab',
    { code: 'stale_tab', retryable: true, recovery: 'browser_navigate' },
  );
}

/** The error for a non-2xx Camofox answer to `action` (a stale tab is the caller's to handle first). */
export function camofoxFailure(reply: CamofoxReply, action: string): GatewayError {
  if (isStaleTab(reply)) return staleTabError();
  const message = camofoxMessage(reply);
  const code = typeof reply.json?.code === 'string' ? reply.json.code : undefined;
  if (code === 'stale_refs') {
    return new GatewayError(ErrorCode.BROWSER_REF_UNKNOWN, `${message} (call browser_snapshot for the current refs)`, { retryable: true, recovery: 'browser_snapshot' });
  }
  if (reply.status === 401 || reply.status === 403) {
    return new GatewayError(ErrorCode.BROWSER_UNAVAILABLE, `Camofox refused the request (${message}): set CAMOFOX_API_KEY to the key Camofox expects`, { component: 'camofox', retryable: false });
  }
  if (reply.status === 503) {
    return new GatewayError(ErrorCode.BROWSER_UNAVAILABLE, `Camofox' browser is not available right now (${message}); retry shortly`, { component: 'camofox', retryable: true });
  }
  const recovery = typeof reply.json?.recovery === 'string' ? reply.json.recovery : undefined;
  return new GatewayError(ErrorCode.BROWSER_ACTION_FAILED, `${action} failed in Camofox: ${message}`, {
    retryable: reply.json?.retryable === true,
    ...(recovery ? { recovery: recovery === 'snapshot_then_retry' ? 'browser_snapshot' : recovery === 'create_new_tab' ? 'browser_navigate' : recovery } : {}),
  });
}
