import { createHash, randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { redact, redactDeep } from '../../shared/redact.js';
import type { LogFormat } from './config.js';

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
 * `pretty` renders each (already redacted) record as a line for a person (prettyLine).
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: { service: 'hermes-mcp-gateway' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { log: (record: Record<string, unknown>) => redactDeep(record) },
    serializers: {
      msg: (message: unknown) => (typeof message === 'string' ? redact(message) : message),
      // Spread: the standard serializer's result has its own prototype, which redactDeep would
      // pass through untouched.
      // Anything logged as `err` that is not an Error (a string, a rejected value) is kept as one
      // redacted string: the error serializer would spread a string into one field per character.
      err: (error: unknown) => (error instanceof Error ? redactDeep({ ...pino.stdSerializers.err(error) }) : redactDeep(String(error))),
    },
  };
  if (format === 'pretty') {
    // Written at once: a terminal is read as it happens, and the volume a person reads is small.
    const out = destination ?? process.stderr;
    return pino(options, { write: (chunk: string) => void out.write(chunk.split('\n').filter(Boolean).map(prettyLine).join('')) });
  }
  // Buffered (4 KiB) asynchronous writes: one write syscall per request would cost more than the
  // request; main() flushes on shutdown.
  return pino(options, destination ?? pino.destination({ dest: 2, sync: false, minLength: 4096 }));
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Shown in a pretty line's head, or not at all (the service name is the same on every line). */
const HEAD_FIELDS = new Set(['level', 'time', 'service', 'msg', 'event']);

function fieldValue(value: unknown): string {
  return typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
}

/**
 * One JSON log record as a line for a person: local time of day, the level's name, the message (else
 * the event), then the other fields as key=value; an error's stack on the lines below.
 */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return `${json}\n`;
  }
  const time = typeof record.time === 'string' ? new Date(record.time).toTimeString().slice(0, 8) : '';
  const level = (LEVEL_NAMES[record.level as number] ?? String(record.level)).padEnd(5);
  const msg = typeof record.msg === 'string' ? record.msg : '';
  const event = typeof record.event === 'string' ? record.event : '';
  const head = msg && event && msg !== event ? `${msg} [${event}]` : msg || event;
  const err = record.err as { stack?: unknown } | undefined;
  const stack = typeof err?.stack === 'string' ? err.stack : undefined;
  const fields = Object.entries(record)
    .filter(([key, value]) => !HEAD_FIELDS.has(key) && value !== msg && !(key === 'err' && stack))
    .map(([key, value]) => `${key}=${fieldValue(value)}`);
  return `${time} ${level} ${head}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}\n${stack ? `${stack.replace(/^/gm, '    ')}\n` : ''}`;
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
