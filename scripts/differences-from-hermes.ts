import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { satisfies, validRange } from '@renovatebot/pep440';
import { packageRoot } from '../shared/package-root.js';

// The "Differences from Hermes" list (docs/differences-from-hermes.md), made from the fidelity
// suite's intended divergences (tests/fidelity/divergences.yaml): `npm run docs:differences` rewrites
// the part between the two markers, and tests/fidelity/divergences.test.ts fails when the page and
// the file disagree.

export const DIVERGENCES_FILE = join(packageRoot(), 'tests', 'fidelity', 'divergences.yaml');
/** The page the list is written into. */
export const DIFFERENCES_PAGE = join(packageRoot(), 'docs', 'differences-from-hermes.md');
export const START = '<!-- differences-from-hermes: made from tests/fidelity/divergences.yaml by `npm run docs:differences`; do not edit by hand -->';
export const END = '<!-- /differences-from-hermes -->';

export interface ListedDivergence {
  id: string;
  surface: string;
  summary: string;
  reason: string;
  cases?: string[];
  fields?: string[];
  /**
   * The Hermes versions it applies to, a PEP 440 specifier (`>=0.20`, `<0.20`); every supported
   * Hermes when absent. A difference from one Hermes only (a default that changed between versions,
   * a guard only the newer one has) is scoped so.
   */
  hermes?: string;
  /**
   * A condition each differing field must meet for the entry to cover it, checked by the surface's
   * fidelity test (harness.ts DivergenceCondition): `hides-all` (redaction) = the gateway's answer
   * shows no piece of the text that Hermes' answer hides.
   */
  when?: 'hides-all';
}

/** The conditions a divergence may name (`when`). */
export const DIVERGENCE_CONDITIONS: readonly string[] = ['hides-all'];

/** Whether `d` applies when comparing with Hermes `version`. */
export function appliesTo(d: ListedDivergence, version: string): boolean {
  return d.hermes === undefined || satisfies(version, d.hermes);
}

export function listedDivergences(text = readFileSync(DIVERGENCES_FILE, 'utf8')): ListedDivergence[] {
  const list = (parse(text) ?? []) as ListedDivergence[];
  if (!Array.isArray(list)) throw new Error('divergences.yaml is not a list');
  const ids = new Set<string>();
  for (const d of list) {
    for (const k of ['id', 'surface', 'summary', 'reason'] as const) {
      if (typeof d[k] !== 'string' || d[k].trim() === '') throw new Error(`divergences.yaml: an entry (${d.id ?? '?'}) has no ${k}`);
    }
    if (d.hermes !== undefined && (typeof d.hermes !== 'string' || !validRange(d.hermes))) throw new Error(`divergences.yaml: ${d.id} has a hermes scope that is not a PEP 440 specifier: ${JSON.stringify(d.hermes)}`);
    if (d.when !== undefined && !DIVERGENCE_CONDITIONS.includes(d.when)) throw new Error(`divergences.yaml: ${d.id} has an unknown condition: ${JSON.stringify(d.when)}`);
    if (ids.has(d.id)) throw new Error(`divergences.yaml: ${d.id} twice`);
    ids.add(d.id);
  }
  return list;
}

/** The generated lines between the markers: one bullet per divergence, grouped by surface in file order. */
export function renderDifferences(list: ListedDivergence[]): string {
  if (list.length === 0) return '_None: every compared case answers as Hermes does._';
  return list.map((d) => `- \`${d.surface}\`${d.hermes ? ` (Hermes ${d.hermes})` : ''}: ${d.summary.trim()} Why: ${d.reason.trim()}`).join('\n');
}

/** `page` with the part between the markers replaced by the rendered list (throws without the markers). */
export function withDifferences(page: string, list: ListedDivergence[]): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/differences-from-hermes.md has no "Differences from Hermes" markers');
  return `${page.slice(0, start + START.length)}\n${renderDifferences(list)}\n${page.slice(end)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(DIFFERENCES_PAGE, withDifferences(readFileSync(DIFFERENCES_PAGE, 'utf8'), listedDivergences()));
}
