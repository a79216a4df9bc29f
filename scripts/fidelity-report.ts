import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

// The fidelity suite's end-of-run table (tests/fidelity): each surface's test file writes its tally
// here as <pin>/<surface>.json, one directory per Hermes it was compared with; run-tests clears the
// directory before the run and prints the table after, a column group per Hermes. The mutation
// test of the suite (scripts/mutation-test.ts) writes its score here too (mutation.json), printed
// under the table.

export const FIDELITY_REPORT_DIR = join(packageRoot(), '.cache', 'fidelity-report');

export interface FidelityTally {
  surface: string;
  /** The Hermes compared with: its pin (scripts/hermes-venv.ts) and version. */
  pin: string;
  hermes: string;
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

/** Every tally written in this run (each in its pin's directory). */
export function fidelityTallies(): FidelityTally[] {
  if (!existsSync(FIDELITY_REPORT_DIR)) return [];
  return readdirSync(FIDELITY_REPORT_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json') && dirname(f) !== '.')
    .map((f) => JSON.parse(readFileSync(join(FIDELITY_REPORT_DIR, f), 'utf8')) as FidelityTally);
}

/** The score of a mutation run (scripts/mutation-test.ts), as written to the report directory. */
export interface MutationScore {
  caught: number;
  selected: number;
  /** The ids of the mutations that survived, and of those whose run broke. */
  survived: string[];
  broken: string[];
  /** Which part of the corpus ran: `all`, `share K/N` or `only`. */
  selection: string;
}

export const MUTATION_SCORE_FILE = join(FIDELITY_REPORT_DIR, 'mutation.json');

export function writeMutationScore(score: MutationScore): void {
  mkdirSync(dirname(MUTATION_SCORE_FILE), { recursive: true });
  writeFileSync(MUTATION_SCORE_FILE, JSON.stringify(score) + '\n');
}

/** The score a mutation run wrote since the report was last cleared, if one did. */
export function mutationScore(): MutationScore | undefined {
  return existsSync(MUTATION_SCORE_FILE) ? (JSON.parse(readFileSync(MUTATION_SCORE_FILE, 'utf8')) as MutationScore) : undefined;
}

/** The mutation score's line ('' without a score). */
export function mutationScoreLine(s: MutationScore | undefined): string {
  if (!s) return '';
  const missed = [...(s.survived.length > 0 ? [`survived: ${s.survived.join(', ')}`] : []), ...(s.broken.length > 0 ? [`broken: ${s.broken.join(', ')}`] : [])];
  return `mutation score: ${s.caught}/${s.selected} caught (tests/fidelity/mutations.yaml, ${s.selection})${missed.length > 0 ? `; ${missed.join('; ')}` : ''}\n`;
}

/**
 * The table of every tally written in this run ('' when no fidelity file ran): a row per surface, a
 * column group per Hermes; the mutation score under it when a mutation run wrote one.
 */
export function fidelityTable(tallies: FidelityTally[] = fidelityTallies(), score: MutationScore | undefined = mutationScore()): string {
  if (tallies.length === 0) return mutationScoreLine(score);
  const versions = [...new Map(tallies.map((t) => [t.pin, t.hermes])).entries()].sort(([a], [b]) => (a === b ? 0 : a === 'oldest' ? -1 : b === 'oldest' ? 1 : a < b ? -1 : 1));
  const surfaces = [...new Set(tallies.map((t) => t.surface))].sort();
  const cells = (t: FidelityTally | undefined) => (t ? [t.cases, t.comparisons, t.equal, t.divergent, t.different].map(String) : ['-', '-', '-', '-', '-']);
  const group = ['cases', 'comparisons', 'equal', 'intended', 'different'];
  const head = ['surface', ...versions.flatMap(() => group)];
  const body = surfaces.map((s) => [s, ...versions.flatMap(([pin]) => cells(tallies.find((t) => t.surface === s && t.pin === pin)))]);
  const sum = (i: number) => String(body.reduce((n, row) => n + (Number(row[i]) || 0), 0));
  const total = ['total', ...head.slice(1).map((_, i) => sum(i + 1))];
  const all = [head, ...body, total];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  // Each Hermes' name over its column group.
  const groupWidth = (g: number) => group.reduce((n, _, j) => n + widths[1 + g * group.length + j]! + 2, 0);
  const titles = ' '.repeat(widths[0]!) + versions.map(([pin, version], g) => `  ${`Hermes ${version} (${pin})`.padEnd(groupWidth(g) - 2)}`).join('');
  return ["Fidelity to Hermes (tests/fidelity): cases compared with Hermes' own functions", titles.trimEnd(), line(head), ...body.map(line), line(total)].join('\n') + '\n' + mutationScoreLine(score);
}
