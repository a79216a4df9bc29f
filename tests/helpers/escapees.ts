import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { processStartTime } from '../../shared/proc.js';
import { cmdline, parentOf } from './procfs.js';

export const ESCAPE_SCRIPT = join(packageRoot(), 'tests', 'fixtures', 'escape.sh');

// Real escapees: a plain background child, a setsid double fork, and a triple fork with a double
// setsid, each a `sleep` renamed to carry a per-test marker so /proc can be scanned for survivors.

export function newMarker(): string {
  return 'hmcpesc' + randomBytes(6).toString('hex');
}

/** A shell command that starts the three escapees, prints `ready`, then keeps running `seconds`. */
export function escapeeCommand(marker: string, seconds = 600): string {
  return `bash ${ESCAPE_SCRIPT} ${marker} ${seconds}`;
}

/** The escapees as seen from the outside: 3 renamed sleeps (the script itself also carries the marker). */
export const ESCAPEE_COUNT = 3;

/** Live (non-zombie) processes whose command line carries the marker. */
export function survivors(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    // cmdline() reads as empty, processStartTime() as undefined, for a process gone or a zombie.
    if (cmdline(Number(name)).includes(marker) && processStartTime(Number(name)) !== undefined) out.push(Number(name));
  }
  return out;
}

export async function waitForSurvivors(marker: string, count: number, ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const s = survivors(marker);
    if (s.length >= count || Date.now() > end) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until no survivor remains (or the time is up) and returns what is left. */
export async function waitForNoSurvivors(marker: string, ms = 3000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const s = survivors(marker);
    if (s.length === 0 || Date.now() > end) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Test cleanup by pid: kill whatever carries the marker (never pkill -f). */
export function killSurvivors(marker: string): void {
  for (const pid of survivors(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** The nearest ancestor of `pid` whose command line matches `re` (walking ppid links in /proc). */
export function ancestorMatching(pid: number, re: RegExp): number | undefined {
  let current = pid;
  for (let depth = 0; depth < 32 && current > 1; depth++) {
    const ppid = parentOf(current);
    if (!ppid) return undefined;
    if (re.test(cmdline(ppid))) return ppid;
    current = ppid;
  }
  return undefined;
}

/** Whether `pid` is PID 1 of a PID namespace of its own (the last NSpid entry is its pid there). */
export function isNamespaceInit(pid: number): boolean {
  try {
    const ids = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]?.trim().split(/\s+/) ?? [];
    return ids.length > 1 && ids[ids.length - 1] === '1';
  } catch {
    return false;
  }
}

/** The nearest ancestor of `pid` that is the init of its own PID namespace (see isNamespaceInit). */
export function namespaceInitAbove(pid: number): number | undefined {
  let current = pid;
  for (let depth = 0; depth < 32 && current > 1; depth++) {
    current = parentOf(current);
    if (!current) return undefined;
    if (isNamespaceInit(current)) return current;
  }
  return undefined;
}
