import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { ErrorCode } from '../../shared/errors.js';
import type { RequestRecord } from './telemetry.js';

// prom-client's four classes, each from its own module. Its index also loads the pushgateway
// (an HTTP client), cluster aggregation, summaries and the default process metrics with the
// OpenTelemetry API: ~80 modules and ~11 MB of idle RSS, none of which the gateway uses. The
// package (15.x) has no `exports` map, so these paths are its public files; the types are the
// index's.
const promFile = createRequire(import.meta.url);
const Registry = promFile('prom-client/lib/registry') as typeof PromClient.Registry;
const Counter = promFile('prom-client/lib/counter') as typeof PromClient.Counter;
const Gauge = promFile('prom-client/lib/gauge') as typeof PromClient.Gauge;
const Histogram = promFile('prom-client/lib/histogram') as typeof PromClient.Histogram;

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
  readonly registry = new Registry();
  private readonly requests: PromClient.Counter<'tool' | 'outcome'>;
  private readonly latency: PromClient.Histogram<'tool' | 'outcome'>;
  private readonly rejections: PromClient.Counter<'reason'>;
  private readonly spawns: PromClient.Counter<'kind'>;
  private readonly spawnLatency: PromClient.Histogram<'kind'>;

  constructor(private readonly sources: MetricsSources) {
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
