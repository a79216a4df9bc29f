import { createHash, randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { redact, redactDeep } from '../shared/redact.js';

// One JSON log event per HTTP request: a generated request id, the tool, elapsed ms and a result
// category. An inbound request id is only ever logged as a truncated SHA-256 (it is caller data and
// may be a credential in disguise). Arguments, commands, tokens and raw headers are never logged:
// the record below has no field that could carry them.

export interface RequestRecord {
  requestId: string;
  inboundIdHash?: string;
  method: string;
  path: string;
  startedAt: number;
  /** The public tool called, and for tool_call the deferred target. */
  tool?: string;
  target?: string;
  /** ok | error:<CODE> | http_<status> | client_aborted */
  category?: string;
}

// Each request's record hangs off its own Request object, which every layer down to the tool
// handler's context holds (the SDK hands it on as ctx.http.req). Not AsyncLocalStorage: on Node 20
// and 22 it installs promise hooks that tax every promise of every request (~90 µs a tool_search).
const records = new WeakMap<Request, RequestRecord>();

export function bindRequestRecord(request: Request, record: RequestRecord): void {
  records.set(request, record);
}

/** The record of the HTTP request `request` arrived on, if it is one the app saw. */
export function requestRecordOf(request: Request | undefined): RequestRecord | undefined {
  return request ? records.get(request) : undefined;
}

function hashInboundId(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

export function newRequestRecord(method: string, path: string, inboundId: string | undefined): RequestRecord {
  return {
    requestId: randomUUID(),
    method,
    path,
    startedAt: performance.now(),
    ...(inboundId ? { inboundIdHash: hashInboundId(inboundId) } : {}),
  };
}

/**
 * The gateway's logger. Every record passes through shared/redact.ts on its way out (fields, the
 * message and serialized errors alike): a reason or stack built from a failing command, a provider
 * error or a worker's stderr may quote a credential, and the log is one more place it must not land.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'hermes-mcp-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: (record) => redactDeep(record) },
      serializers: {
        msg: (message: unknown) => (typeof message === 'string' ? redact(message) : message),
        // Spread: the standard serializer's result has its own prototype, which redactDeep would
        // pass through untouched.
        // Anything logged as `err` that is not an Error (a string, a rejected value) is kept as one
        // redacted string: the error serializer would spread a string into one field per character.
        err: (error: unknown) => (error instanceof Error ? redactDeep({ ...pino.stdSerializers.err(error) }) : redactDeep(String(error))),
      },
    },
    // Buffered (4 KiB) asynchronous writes: one write syscall per request would cost more than the
    // request; main() flushes on shutdown.
    destination ?? pino.destination({ dest: 2, sync: false, minLength: 4096 }),
  );
}

export function logRequest(log: Logger, record: RequestRecord, status: number): void {
  log.info(
    {
      event: 'request',
      request_id: record.requestId,
      ...(record.inboundIdHash ? { inbound_request_id_sha256: record.inboundIdHash } : {}),
      http_method: record.method,
      path: record.path,
      status,
      ...(record.tool ? { tool: record.tool } : {}),
      ...(record.target ? { target: record.target } : {}),
      category: record.category ?? (status >= 400 ? `http_${status}` : 'ok'),
      elapsed_ms: Math.round((performance.now() - record.startedAt) * 100) / 100,
    },
    'request',
  );
}

/**
 * True when a request failed because its client went away: the socket closed or reset while the
 * body was still being read (a Content-Length longer than what was sent, broken chunked encoding).
 * Node rejects the body read with `aborted` (ECONNRESET) and the request's signal is aborted.
 */
export function isClientAbort(error: unknown, request: Request): boolean {
  if (request.signal.aborted) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 'ECONNRESET' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.message === 'aborted';
}
