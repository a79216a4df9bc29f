import { readFileSync } from 'node:fs';
import { statFields } from '../../shared/proc.js';

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
