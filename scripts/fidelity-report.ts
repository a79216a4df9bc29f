import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

// The fidelity suite's end-of-run table (tests/fidelity): each surface's test file writes its tally
// here as <surface>.json; run-tests clears the directory before the run and prints the table after.

export const FIDELITY_REPORT_DIR = join(packageRoot(), '.cache', 'fidelity-report');

export interface FidelityTally {
  surface: string;
  /** Distinct cases compared. */
  cases: number;
  /** Comparisons (a case compared once per way of reaching the gateway). */
  comparisons: number;
  equal: number;
  divergent: number;
  different: number;
}

export function clearFidelityReport(): void {
  rmSync(FIDELITY_REPORT_DIR, { recursive: true, force: true });
}

/** The table of every tally written in this run ('' when no fidelity file ran). */
export function fidelityTable(): string {
  if (!existsSync(FIDELITY_REPORT_DIR)) return '';
  const rows = readdirSync(FIDELITY_REPORT_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(FIDELITY_REPORT_DIR, f), 'utf8')) as FidelityTally);
  if (rows.length === 0) return '';
  const head = ['surface', 'cases', 'comparisons', 'equal', 'intended divergence', 'different'];
  const body = rows.map((r) => [r.surface, r.cases, r.comparisons, r.equal, r.divergent, r.different].map(String));
  const total = ['total', ...[1, 2, 3, 4, 5].map((i) => String(body.reduce((n, row) => n + Number(row[i]), 0)))];
  const all = [head, ...body, total];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return ['Fidelity to Hermes (tests/fidelity): cases compared with Hermes\' own functions', line(head), ...body.map(line), line(total)].join('\n') + '\n';
}
