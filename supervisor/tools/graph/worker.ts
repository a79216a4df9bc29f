import type { Logger } from 'pino';
import type { GraphFailureCode, GraphSettings } from '../../../shared/worker-protocol/graph.js';
import { ResidentWorker, WORKER_SLACK_MS } from '../../platform/spawning/resident-worker.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';

// The supervisor's handle on the one graph worker (workers/graph-worker.ts): a resident worker
// (spawned on first use, replaced after it died, every request bounded), configured with the graph
// settings; its failures are the GRAPH_* codes.

export { WORKER_SLACK_MS };

export type WorkerSettings = GraphSettings & { openTimeoutMs: number };

export class GraphWorker extends ResidentWorker<'graph-worker', GraphFailureCode> {
  constructor(runtime: WorkerRuntime, settings: WorkerSettings, env: Record<string, string>, log: Logger) {
    super(runtime, 'graph-worker', { type: 'configure', ...settings }, env, log, { name: 'graph', what: 'graph worker', failedCode: 'GRAPH_UPSTREAM_FAILED', timeoutCode: 'GRAPH_TIMEOUT' });
  }
}
