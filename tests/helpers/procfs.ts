import { readFileSync } from 'node:fs';
import { numericDirs, statFields } from '../../shared/proc.js';

// What tests read about a process from /proc (a process that is gone reads as empty / 0).

/** The process's command line, arguments joined by spaces. */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** The process's parent pid. */
export function parentOf(pid: number): number {
  return Number(statFields(pid)?.[1] ?? 0);
}

/**
 * Processes other than this one (and `except`) whose environment names `home` as HERMES_HOME: what
 * a test's gateway, doctor or Hermes call left running there.
 */
export function processesWithHome(home: string, except: readonly number[] = []): number[] {
  const needle = `HERMES_HOME=${home}\0`;
  return numericDirs('/proc').filter((pid) => {
    if (pid === process.pid || except.includes(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle);
    } catch {
      return false; // gone, or not ours
    }
  });
}
