import { descendantsOf, numericDirs, processesTagged, processStartTime, WORKER_TAG_VAR } from '../../shared/proc.js';
import { subreaperAddon } from '../../shared/subreaper.js';

// Whole-tree cleanup from inside a worker. Two situations:
// - PID-namespace mode: the worker is PID 1 of its own namespace (and /proc is the namespace's), so
//   every other pid in /proc is something this worker's work started: kill them all. Escapees that
//   setsid and double-fork are still in the namespace, and orphans re-parent to us.
// - Fallback (no namespace): the worker is a child subreaper, so orphaned descendants re-parent to
//   it instead of PID 1; walk /proc/self/task/*/children recursively, plus any process carrying this
//   worker's environment tag (catches a grandchild whose parent is still alive elsewhere).
// Either way, killed processes that are our children are reaped explicitly: libuv only reaps the
// children it spawned itself.


function kill(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Everything this worker's work started that is still alive (the same scan the kill uses). */
function startedProcesses(): number[] {
  const tag = process.env[WORKER_TAG_VAR];
  const victims = inOwnPidNamespace() ? numericDirs('/proc').filter((p) => p !== 1) : [...new Set([...descendantsOf(process.pid), ...(tag ? processesTagged(tag) : [])])];
  return victims.filter((p) => p !== process.pid && !isZombie(p));
}

/**
 * The polite first step of termination: SIGTERM to everything this worker started, once, so the
 * command can clean up (flush, remove lock files). Whoever asked escalates to killEverythingStarted
 * after a grace period; nothing here waits.
 */
export function signalEverythingStarted(signal: NodeJS.Signals): number {
  const targets = startedProcesses();
  for (const pid of targets) kill(pid, signal);
  return targets.length;
}

/** True when this worker is the init of its own PID namespace. */
function inOwnPidNamespace(): boolean {
  return process.pid === 1;
}

/**
 * SIGKILLs everything this worker started, then reaps the orphans it adopted. `spawned` are the
 * children this worker spawned through child_process: they are killed but left for libuv to reap
 * (reaping them here would swallow their 'exit' events). Loops because a process may fork between
 * our scan and our kill. `spare` are left alone (a persistent shell that outlives its commands).
 */
export function killEverythingStarted(spawned: ReadonlySet<number> = new Set(), spare: ReadonlySet<number> = new Set()): number {
  let killed = 0;
  for (let round = 0; round < 5; round++) {
    const targets = startedProcesses().filter((p) => !spare.has(p));
    if (targets.length === 0) break;
    for (const pid of targets) kill(pid);
    killed += targets.length;
    reapAdopted(targets.filter((p) => !spawned.has(p)));
  }
  return killed;
}

/** waitpid() each pid that is our (adopted) child so no zombie is left behind. */
export function reapAdopted(pids: readonly number[]): void {
  const addon = subreaperAddon();
  if (!addon) return;
  for (const pid of pids) {
    for (let i = 0; i < 50; i++) {
      const r = addon.reap(pid);
      if (r !== 0) break; // reaped, or not our child
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // 1 ms for SIGKILL to land
    }
  }
}

/** Gone, or a zombie waiting to be reaped (processStartTime answers undefined for both). */
function isZombie(pid: number): boolean {
  return processStartTime(pid) === undefined;
}

/** Zombie sweep for a long-lived namespace init: reap exited orphans that nobody waited for. */
export function reapZombies(spawned: ReadonlySet<number> = new Set()): void {
  if (!inOwnPidNamespace()) return;
  reapAdopted(numericDirs('/proc').filter((pid) => pid !== 1 && !spawned.has(pid) && isZombie(pid)));
}
