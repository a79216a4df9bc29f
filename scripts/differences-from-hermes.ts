import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { satisfies, validRange } from '@renovatebot/pep440';
import { packageRoot } from '../shared/package-root.js';
import { BROAD_FIELDS, describePredicate, validatePredicate, type Predicate } from './divergence-predicates.js';

// The "Differences from Hermes" list (docs/differences-from-hermes.md), made from the fidelity
// suite's intended divergences (tests/fidelity/divergences/<surface>.yaml, the format in the README
// there): `npm run docs:differences` rewrites the part between the two markers, and
// tests/fidelity/divergences.test.ts fails when the page and the files disagree.

export const DIVERGENCES_DIR = join(packageRoot(), 'tests', 'fidelity', 'divergences');
/** The page the list is written into. */
export const DIFFERENCES_PAGE = join(packageRoot(), 'docs', 'differences-from-hermes.md');
export const START = '<!-- differences-from-hermes: made from tests/fidelity/divergences/ by `npm run docs:differences`; do not edit by hand -->';
export const END = '<!-- /differences-from-hermes -->';

export interface ListedDivergence {
  id: string;
  surface: string;
  summary: string;
  reason: string;
  cases?: string[];
  /** The ways of reaching the gateway it applies to (mcp, hermes_tools, ...); every way when absent. */
  via?: string[];
  /** Per field pattern (a dotted path, `*` for one segment), what the gateway answers there. */
  fields: Record<string, Predicate>;
  /**
   * The Hermes versions it applies to, a PEP 440 specifier (`>=0.20`, `<0.20`); every supported
   * Hermes when absent. A difference from one Hermes only (a default that changed between versions,
   * a guard only the newer one has) is scoped so.
   */
  hermes?: string;
}

/** Whether `d` applies when comparing with Hermes `version`. */
export function appliesTo(d: ListedDivergence, version: string): boolean {
  return d.hermes === undefined || satisfies(version, d.hermes);
}

/** Whether a field pattern names a broad field (BROAD_FIELDS, or any field at its last segment). */
export function isBroadField(pattern: string): boolean {
  const last = pattern.split('.').at(-1)!;
  return pattern === '.' || last === '*' || BROAD_FIELDS.includes(last);
}

/** The checks (named predicates its surface must provide) an entry names. */
export function checksOf(d: ListedDivergence): string[] {
  return Object.entries(d.fields).flatMap(([field, p]) => validatePredicate(p, isBroadField(field)));
}

const ENTRY_KEYS = new Set(['id', 'surface', 'summary', 'reason', 'cases', 'via', 'fields', 'hermes']);

/** One surface file's entries, each checked (`file`: its name, for the messages). */
export function parseDivergences(text: string, file: string): ListedDivergence[] {
  const list = (parse(text) ?? []) as ListedDivergence[];
  if (!Array.isArray(list)) throw new Error(`${file} is not a list`);
  for (const d of list) {
    const where = `${file}: ${d.id ?? '?'}`;
    for (const k of ['id', 'surface', 'summary', 'reason'] as const) {
      if (typeof d[k] !== 'string' || d[k].trim() === '') throw new Error(`${where} has no ${k}`);
    }
    for (const k of Object.keys(d)) if (!ENTRY_KEYS.has(k)) throw new Error(`${where}: unknown key ${k}`);
    if (d.hermes !== undefined && (typeof d.hermes !== 'string' || !validRange(d.hermes))) throw new Error(`${where} has a hermes scope that is not a PEP 440 specifier: ${JSON.stringify(d.hermes)}`);
    for (const k of ['cases', 'via'] as const) {
      const v = d[k];
      if (v !== undefined && (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string') || new Set(v).size !== v.length)) throw new Error(`${where}: ${k} is a non-empty list of distinct names`);
    }
    if (typeof d.fields !== 'object' || d.fields === null || Array.isArray(d.fields) || Object.keys(d.fields).length === 0) throw new Error(`${where} names no fields: each entry maps its fields to what the gateway answers there`);
    try {
      checksOf(d);
    } catch (e) {
      throw new Error(`${where}: ${(e as Error).message}`);
    }
  }
  return list;
}

/** Every intended divergence: the surface files in name order, each in its own order. */
export function listedDivergences(dir = DIVERGENCES_DIR): ListedDivergence[] {
  const ids = new Set<string>();
  const out: ListedDivergence[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const d of parseDivergences(readFileSync(join(dir, file), 'utf8'), file)) {
      if (`${d.surface}.yaml` !== file) throw new Error(`${file}: ${d.id} is of the surface ${d.surface}, listed in the wrong file`);
      if (ids.has(d.id)) throw new Error(`${file}: ${d.id} twice`);
      ids.add(d.id);
      out.push(d);
    }
  }
  return out;
}

/** The generated lines between the markers: one bullet per divergence, grouped by surface in file order. */
export function renderDifferences(list: ListedDivergence[]): string {
  if (list.length === 0) return '_None: every compared case answers as Hermes does._';
  const answer = (d: ListedDivergence) =>
    Object.entries(d.fields)
      .map(([field, p]) => `\`${field}\` ${describePredicate(p)}`)
      .join('; ');
  return list.map((d) => `- \`${d.surface}\`${d.hermes ? ` (Hermes ${d.hermes})` : ''}: ${d.summary.trim()} The gateway answers: ${answer(d)}. Why: ${d.reason.trim()}`).join('\n');
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
