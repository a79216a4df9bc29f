import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { scrubChildEnv } from '../../shared/env-scrub.js';
import { packageRoot } from '../../shared/package-root.js';
import type { GatewayConfig } from '../config.js';
import { detectIsolation, type IsolationReport } from '../workers/isolation.js';
import { detectSystemdScope, scopeArgv } from '../workers/systemd-scope.js';
import { WorkerProcess } from '../workers/worker-process.js';

// What every native adapter shares: the detected isolation, the scrubbed environment workers and
// their commands inherit, and the private state directory (0700) for snapshots and sockets.
// When the host resource policy is enforced and systemd user scopes work here, every execute_code
// worker starts inside its own transient scope under hermesshort.slice (kernel-enforced limits on
// the whole tree); terminal workers never do, since direct terminal is refused under the policy.

/** The slice short execute_code workers' scopes go under. */
export const SHORT_WORKER_SLICE = 'hermesshort.slice';
// Per-scope limits for short workers. Defaults for now: the jobs issue moves them into the resource
// policy (HERMES_MCP_RESOURCE_POLICY) next to the job slices' limits.
export const SHORT_WORKER_MEMORY_MAX = '1G';
export const SHORT_WORKER_TASKS_MAX = 256;
export const SHORT_WORKER_CPU_QUOTA = '100%';

export interface WorkerRuntime {
  isolation: IsolationReport;
  config: GatewayConfig;
  /** The environment of workers and everything they run: Hermes' scrubbing rules applied. */
  childEnv: Record<string, string>;
  /** Whether execute_code workers run in systemd scopes (resource policy set AND scopes available). */
  scoped: boolean;
  /** Why scopes are (not) used, for the startup log. */
  scopeReason: string;
  /** A fresh private directory under the state root (removed by the caller). */
  privateDir(prefix: string): string;
  spawnWorker(entry: 'terminal-worker' | 'execute-worker' | 'process-worker', options?: { cwd?: string; env?: Record<string, string>; onFailure?: (reason: string) => void }): WorkerProcess;
  /** Pids of the workers currently alive (for usage sampling). */
  liveWorkerPids(): number[];
}

/** Where a worker's failure (protocol violation, crash) is reported; the worker is already dead. */
export type WorkerFailureLog = (entry: string, reason: string) => void;

export function createWorkerRuntime(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env, onWorkerFailure: WorkerFailureLog = () => {}): WorkerRuntime {
  const isolation = detectIsolation(config.isolation);
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  const childEnv = scrubChildEnv(env);
  // Probed once, and only when it matters: without a resource policy systemd-run is never run. The
  // probe gets the workers' own environment, so it finds the same systemd-run (PATH) and reaches the
  // same user manager (XDG_RUNTIME_DIR) the scoped spawns will.
  const scope = config.resourcePolicy ? detectSystemdScope(childEnv) : { available: false, reason: 'no resource policy (HERMES_MCP_RESOURCE_POLICY unset)' };
  const scoped = Boolean(config.resourcePolicy) && scope.available;
  const live = new Set<WorkerProcess>();
  return {
    liveWorkerPids: () => [...live].flatMap((w) => (w.alive && w.pid ? [w.pid] : [])),
    isolation,
    config,
    childEnv,
    scoped,
    scopeReason: scope.reason,
    privateDir(prefix) {
      return mkdtempSync(join(config.stateDir, `${prefix}-`)); // mkdtemp creates 0700
    },
    spawnWorker(entry, options = {}) {
      const worker = new WorkerProcess({
        entry: join(packageRoot(), 'dist', 'workers', `${entry}.js`),
        isolation,
        ...(scoped && entry === 'execute-worker'
          ? {
              scope: scopeArgv({
                unit: `hermes-exec-${randomBytes(8).toString('hex')}`,
                slice: SHORT_WORKER_SLICE,
                memoryMax: SHORT_WORKER_MEMORY_MAX,
                tasksMax: SHORT_WORKER_TASKS_MAX,
                cpuQuota: SHORT_WORKER_CPU_QUOTA,
              }),
            }
          : {}),
        env: { ...childEnv, ...options.env },
        cwd: options.cwd ?? '/',
        maxFrameBytes: config.limits.workerTransportMaxBytes * 4,
        oneShot: entry !== 'terminal-worker',
        onFailure: (reason) => {
          onWorkerFailure(entry, reason);
          options.onFailure?.(reason);
        },
      });
      live.add(worker);
      void worker.exited.then(() => live.delete(worker));
      return worker;
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
