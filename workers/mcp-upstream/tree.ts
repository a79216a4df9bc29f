import { childrenOf, descendantsOf, processStartTime, statFields } from '../../shared/proc.js';
import { reapAdopted } from '../runtime/reap.js';

// One upstream session's process tree (the upstream and whatever it started: language servers,
// the ttscgraph compiler), so a session that is closed or killed takes its whole tree with it while
// the other sessions in this worker keep running. The tree is read before the upstream goes:
// afterwards its children are orphans re-parented to this worker and no longer its descendants.
// Each pid is kept with its start time, so a pid reused meanwhile is never signalled or reaped.

export type ProcessTree = ReadonlyArray<{ pid: number; startTime: string }>;

/** The upstream `pid` and its live descendants, right now. */
export function treeOf(pid: number): ProcessTree {
  return [pid, ...descendantsOf(pid)].flatMap((p) => {
    const startTime = processStartTime(p);
    return startTime === undefined ? [] : [{ pid: p, startTime }];
  });
}

/**
 * SIGKILLs what is left of `tree`, then reaps the members this worker adopted (the upstream's
 * orphans, dead or just killed: nothing else waits for them). `upstream` itself was spawned through
 * child_process and is left for libuv to reap, or its exit event would be lost.
 */
export function killTree(tree: ProcessTree, upstream: number | undefined): void {
  // Same pid and same start time: that process (alive or a zombie), not a newcomer on a reused pid.
  const remaining = tree.filter((p) => statFields(p.pid)?.[19] === p.startTime).map((p) => p.pid);
  for (const pid of remaining) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  reapAdopted(remaining.filter((pid) => pid !== upstream));
}

/** The upstreams this worker spawned and whose exit libuv has not reported yet. */
const upstreams = new Set<number>();

export function trackUpstream(pid: number): void {
  upstreams.add(pid);
}

/**
 * An upstream is gone (libuv reaped it): whatever it left running was re-parented to this worker
 * (the init of its PID namespace, or a child subreaper) and belongs to no session any more. The
 * worker's only own children are upstreams, so every other child is such an orphan: kill and reap it.
 */
export function upstreamGone(pid: number): void {
  upstreams.delete(pid);
  const orphans = childrenOf(process.pid).filter((child) => !upstreams.has(child));
  for (const orphan of orphans) {
    try {
      process.kill(orphan, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  reapAdopted(orphans);
}
