import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { scrubChildEnv } from '../../shared/env-scrub.js';
import { packageRoot } from '../../shared/package-root.js';
import type { GatewayConfig } from '../config.js';
import { detectIsolation, type IsolationReport } from '../workers/isolation.js';
import { WorkerProcess } from '../workers/worker-process.js';

// What every native adapter shares: the detected isolation, the scrubbed environment workers and
// their commands inherit, and the private state directory (0700) for snapshots and sockets.

export interface WorkerRuntime {
  isolation: IsolationReport;
  config: GatewayConfig;
  /** The environment of workers and everything they run: Hermes' scrubbing rules applied. */
  childEnv: Record<string, string>;
  /** A fresh private directory under the state root (removed by the caller). */
  privateDir(prefix: string): string;
  spawnWorker(entry: 'terminal-worker' | 'execute-worker', options?: { cwd?: string; env?: Record<string, string>; onFailure?: (reason: string) => void }): WorkerProcess;
}

export function createWorkerRuntime(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): WorkerRuntime {
  const isolation = detectIsolation(config.isolation);
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  const childEnv = scrubChildEnv(env);
  return {
    isolation,
    config,
    childEnv,
    privateDir(prefix) {
      return mkdtempSync(join(config.stateDir, `${prefix}-`)); // mkdtemp creates 0700
    },
    spawnWorker(entry, options = {}) {
      return new WorkerProcess({
        entry: join(packageRoot(), 'dist', 'workers', `${entry}.js`),
        isolation,
        env: { ...childEnv, ...options.env },
        cwd: options.cwd ?? '/',
        maxFrameBytes: config.limits.workerTransportMaxBytes * 4,
        ...(options.onFailure ? { onFailure: options.onFailure } : {}),
      });
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
