import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';

// Small /proc readers shared by the worker-side reaper and the supervisor's usage sampling.

export function numericDirs(path: string): number[] {
  try {
    return readdirSync(path)
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
}

export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of numericDirs(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    } catch {
      // the task went away
    }
  }
  return out;
}

/** Every live descendant of `pid` (children lists only: orphans adopted elsewhere are not seen). */
export function descendantsOf(pid: number): number[] {
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length > 0) {
    for (const child of childrenOf(stack.pop()!)) {
      if (!seen.has(child)) {
        seen.add(child);
        stack.push(child);
      }
    }
  }
  return [...seen];
}

/** The environment variable that tags every process a worker starts (the fallback sweep's key). */
export const WORKER_TAG_VAR = 'HERMES_MCP_WORKER_TAG';

/** Processes (other than this one) whose environment carries `tag` as the worker tag. */
export function processesTagged(tag: string): number[] {
  const needle = `${WORKER_TAG_VAR}=${tag}`;
  return numericDirs('/proc').filter((pid) => {
    if (pid === process.pid) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

/**
 * /proc/<pid>/stat from field 3 (the state) on, or undefined when the process is gone: fields[0] is
 * the state, fields[1] the parent pid, fields[19] the start time. The command name (field 2) is cut
 * off first, since it may contain spaces and parentheses.
 */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * A process's start time (clock ticks since boot, /proc/<pid>/stat field 22) or undefined when it
 * is gone. A pid together with its start time names one process for good: pids are reused, the
 * pair is not (within one boot).
 */
export function processStartTime(pid: number): string | undefined {
  const fields = statFields(pid);
  if (!fields || fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields[19];
}

/**
 * The children of `pid` that have exited but were not waited for (state Z), each with its start
 * time, so a later look can tell the same zombie from a new process on a reused pid.
 */
export function zombieChildrenOf(pid: number): Array<{ pid: number; startTime: string }> {
  const out: Array<{ pid: number; startTime: string }> = [];
  for (const child of childrenOf(pid)) {
    const fields = statFields(child); // undefined: reaped meanwhile
    if (fields?.[0] === 'Z') out.push({ pid: child, startTime: fields[19]! });
  }
  return out;
}

/** True while the process identified by (pid, start time) still exists. */
export function processIsAlive(pid: number, startTime: string): boolean {
  return processStartTime(pid) === startTime;
}

/** Signals a worker's process group and the worker itself (a PID namespace dies with its init). */
export function signalTree(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // gone
    }
  }
}

/** MemAvailable from /proc/meminfo, in bytes (undefined where it cannot be read). */
export function memAvailableBytes(): number | undefined {
  try {
    const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The name of signal number `signo` (9 → SIGKILL), as exit reports carry numbers across processes. */
export function signalName(signo: number): NodeJS.Signals | undefined {
  return (Object.keys(constants.signals) as NodeJS.Signals[]).find((name) => constants.signals[name] === signo);
}
