import { createHash, randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { ErrorCode } from '../../shared/errors.js';
import { redact, redactDeep } from '../../shared/redact.js';
import type { LogFormat } from './config.js';

// What the gateway tells its operator of each request: its log event and its Prometheus metrics
// (GatewayMetrics, below).
//
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

// prom-client's four classes, each from its own module. Its index also loads the pushgateway
// (an HTTP client), cluster aggregation, summaries and the default process metrics with the
// OpenTelemetry API: ~80 modules and ~11 MB of idle RSS, none of which the gateway uses. The
// package (15.x) has no `exports` map, so these paths are its public files; the types are the
// index's.
// Loaded when a gateway builds its metrics: hermes-mcp-lsp logs through this module but has none.
function promClasses() {
  const promFile = createRequire(import.meta.url);
  return {
    Registry: promFile('prom-client/lib/registry') as typeof PromClient.Registry,
    Counter: promFile('prom-client/lib/counter') as typeof PromClient.Counter,
    Gauge: promFile('prom-client/lib/gauge') as typeof PromClient.Gauge,
    Histogram: promFile('prom-client/lib/histogram') as typeof PromClient.Histogram,
  };
}

// GET /metrics (Prometheus text format, loopback only): what an operator graphs and alerts on.
// One Registry per gateway instance, never prom-client's global one: tests (and embedders) run many
// gateways in one process, and each must report only its own traffic.
//
// Every label value comes from a closed set, so a client cannot grow the series count: tool names
// only from the frozen catalog and the public tools ("other" for anything else, "none" for
// requests that name no tool such as initialize), outcomes only from the error catalogue, HTTP
// status classes, worker kinds and job states as the code defines them, readiness components as
// registered at startup.

const ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));
const JOB_STATES = ['prepared', 'starting', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out', 'expired', 'unknown'] as const;
/** job_start refusals that are admission decisions (the rest are the caller's mistakes). */
const ADMISSION_CODES: ReadonlySet<string> = new Set([
  ErrorCode.JOB_QUOTA_EXCEEDED,
  ErrorCode.JOB_SESSION_QUOTA_EXCEEDED,
  ErrorCode.JOB_WORKSPACE_BUSY,
  ErrorCode.JOB_HEAVY_BUSY,
  ErrorCode.JOB_MEMORY_UNAVAILABLE,
  ErrorCode.JOB_ADMISSION_PAUSED,
  ErrorCode.RESOURCE_POLICY_UNENFORCEABLE,
  ErrorCode.RESOURCE_POLICY_INVALID,
  ErrorCode.BUSY,
]);
// Tool calls span a cached BM25 lookup (sub-millisecond) to a 25 s job_status wait and beyond.
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const SPAWN_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the metrics read at scrape time (cheap reads, except readiness, which probes as /readyz does). */
export interface MetricsSources {
  /** True for a tool of the frozen catalog or a public tool. */
  knownTool(name: string): boolean;
  inflightRequests(): number;
  inflightNativeCalls(): number;
  liveWorkers(): number;
  /** Job counts by state in the job database (empty when it is unavailable). */
  jobCounts(): Record<string, number>;
  /** Readiness of every component, as /readyz reports it. */
  readiness(): Promise<{ components: Record<string, { ready: boolean; required: boolean }> }>;
}

export class GatewayMetrics {
  readonly registry: PromClient.Registry;
  private readonly requests: PromClient.Counter<'tool' | 'outcome'>;
  private readonly latency: PromClient.Histogram<'tool' | 'outcome'>;
  private readonly rejections: PromClient.Counter<'reason'>;
  private readonly spawns: PromClient.Counter<'kind'>;
  private readonly spawnLatency: PromClient.Histogram<'kind'>;

  constructor(private readonly sources: MetricsSources) {
    const { Registry, Counter, Gauge, Histogram } = promClasses();
    this.registry = new Registry();
    const registers = [this.registry];
    this.requests = new Counter({ name: 'hermes_mcp_requests_total', help: 'MCP requests by tool (the deferred target for tool_call) and outcome', labelNames: ['tool', 'outcome'], registers });
    this.latency = new Histogram({ name: 'hermes_mcp_request_duration_seconds', help: 'MCP request latency by tool and outcome', labelNames: ['tool', 'outcome'], buckets: LATENCY_BUCKETS, registers });
    this.rejections = new Counter({ name: 'hermes_mcp_job_admission_rejections_total', help: 'job_start refusals by admission reason (error code)', labelNames: ['reason'], registers });
    this.spawns = new Counter({ name: 'hermes_mcp_worker_spawns_total', help: 'worker processes spawned, by kind', labelNames: ['kind'], registers });
    this.spawnLatency = new Histogram({ name: 'hermes_mcp_worker_spawn_seconds', help: 'time from spawn until a worker announced it was ready, by kind', labelNames: ['kind'], buckets: SPAWN_BUCKETS, registers });
    new Gauge({ name: 'hermes_mcp_inflight_requests', help: 'MCP requests being handled now', registers, collect: function () { this.set(sources.inflightRequests()); } });
    new Gauge({ name: 'hermes_mcp_inflight_native_calls', help: 'native tool calls running now', registers, collect: function () { this.set(sources.inflightNativeCalls()); } });
    new Gauge({ name: 'hermes_mcp_workers', help: 'worker processes alive now', registers, collect: function () { this.set(sources.liveWorkers()); } });
    new Gauge({
      name: 'hermes_mcp_jobs',
      help: 'jobs in the job database by state',
      labelNames: ['state'],
      registers,
      collect: function () {
        const counts = sources.jobCounts();
        for (const state of JOB_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
    new Gauge({
      name: 'hermes_mcp_component_ready',
      help: 'readiness of each /readyz component (1 ready, 0 not), with whether it is required',
      labelNames: ['component', 'required'],
      registers,
      collect: async function () {
        const report = await sources.readiness();
        for (const [component, result] of Object.entries(report.components)) this.set({ component, required: String(result.required) }, result.ready ? 1 : 0);
      },
    });
  }

  /** One finished HTTP request: counted when it was an MCP request. */
  observeRequest(record: RequestRecord, status: number): void {
    if (record.path !== '/mcp') return;
    const name = record.target ?? record.tool;
    const tool = name === undefined ? 'none' : this.sources.knownTool(name) ? name : 'other';
    const outcome = boundedOutcome(record.category, status);
    const seconds = (performance.now() - record.startedAt) / 1000;
    this.requests.inc({ tool, outcome });
    this.latency.observe({ tool, outcome }, seconds);
    const code = outcome.startsWith('error:') ? outcome.slice('error:'.length) : undefined;
    if (tool === 'job_start' && code && ADMISSION_CODES.has(code)) this.rejections.inc({ reason: code });
  }

  /** A worker spawned (`readySeconds` once it announced readiness; execute units never do). */
  observeSpawn(kind: string, readySeconds?: number): void {
    if (readySeconds === undefined) this.spawns.inc({ kind });
    else this.spawnLatency.observe({ kind }, readySeconds);
  }

  async render(): Promise<string> {
    return this.registry.metrics();
  }
}

/** The request's category as a label from a closed set. */
function boundedOutcome(category: string | undefined, status: number): string {
  if (category === undefined) return status >= 400 ? `http_${Math.floor(status / 100)}xx` : 'ok';
  if (category === 'ok' || category === 'client_aborted') return category;
  if (category.startsWith('error:')) return ERROR_CODES.has(category.slice(6)) ? category : 'error:other';
  if (category.startsWith('http_')) return `http_${Math.floor(status / 100)}xx`;
  return 'other';
}
