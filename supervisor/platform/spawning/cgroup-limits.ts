import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sizeBytes, type ResourceLimits } from '../../../policy/resource-policy.js';

// The fallback when no systemd user manager is reachable but a delegated cgroup v2 tree is writable:
// one child cgroup per unit of work with memory.max, pids.max and cpu.max, and the worker moved into
// it (before it starts its command, so every descendant is born inside). The kernel then enforces
// the limits on the whole tree exactly as a systemd scope would.

const CPU_PERIOD_US = 100_000;

/**
 * Enables the memory, pids and cpu controllers for the children of `root`, once at startup;
 * harmless when they already are (the per-job limit writes fail loudly if they are not).
 */
export function enableCgroupControllers(root: string): void {
  try {
    writeFileSync(join(root, 'cgroup.subtree_control'), '+memory +pids +cpu');
  } catch {
    // Already enabled, or delegated that way.
  }
}

/** cpu.max for a systemd-style percentage: "200%" -> "200000 100000". */
function cpuMax(quota: string): string {
  return `${Math.round((Number(quota.replace('%', '')) / 100) * CPU_PERIOD_US)} ${CPU_PERIOD_US}`;
}

export class CgroupLimit {
  readonly dir: string;

  constructor(root: string, unit: string, limits: ResourceLimits) {
    this.dir = join(root, unit);
    mkdirSync(this.dir, { recursive: false });
    try {
      writeFileSync(join(this.dir, 'memory.max'), String(sizeBytes(limits.memory_max)));
      writeFileSync(join(this.dir, 'pids.max'), String(limits.tasks_max));
      writeFileSync(join(this.dir, 'cpu.max'), cpuMax(limits.cpu_quota));
    } catch (e) {
      this.remove(); // no half-limited cgroup left behind
      throw e;
    }
  }

  /** Moves a process (the worker, before it starts anything) into the limited cgroup. */
  adopt(pid: number): void {
    writeFileSync(join(this.dir, 'cgroup.procs'), String(pid));
  }

  /** Removes the (by then empty) cgroup. */
  remove(): void {
    try {
      rmdirSync(this.dir);
    } catch {
      // Still populated (a straggler being killed) or already gone: the kernel keeps it until empty.
    }
  }
}
