import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { readdirSync, symlinkSync, utimesSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { satisfies } from '@renovatebot/pep440';
import { ensurePackage, RIPGREP } from '../../scripts/test-prerequisites.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { hermes } from '../helpers/hermes.js';
import { viaBridge } from '../helpers/gateway.js';
import { appliesTo } from '../../scripts/differences-from-hermes.js';
import { compareSurface, divergences, errorAsHermes, loadCases, normalise, oneByOne, SurfaceFixture, valueAt, type Answers, type FidelityCase } from './harness.js';
import { writeFiles, type FidelityGateway, type FileSpec } from './workspace.js';

// search_files against Hermes' search_files handler (tools/file_tools.py _handle_search_files, then
// search_tool, which runs tools/file_operations.py ShellFileOperations.search: ripgrep when it is
// installed, grep / find when it is not), over MCP and through hermes_tools. Each case's files are written into a
// directory of its own; `args.path` is relative to it (the directory itself when absent).
//
// - `mtimes` sets files' modification times (seconds), so a search ordered by them is deterministic;
// - `no_rg: true` compares the case a second time, as `<id>.no-rg`, against Hermes on a host
//   without ripgrep (the driver says how), and asks a second gateway whose PATH (its own and its
//   children's) has no rg: the gateway searches without ripgrep either way, and must answer the same;
// - `relative: true` gives the path relative to the terminal's cwd (the workspace), as typed;
// - `unordered: true` sorts matches (by path, then line) and files on both sides before comparing:
//   for content searches over several files, whose order ripgrep leaves to its parallel walk. A file
//   search in Hermes 0.22's default `order: discovery` is compared so too (ripgrep's walk order, or
//   find's directory order without it, is no order a second walker can repeat), and a truncated
//   page of one by how many distinct files of the case it holds (which ones is the walker's);
// - `hermes: '<specifier>'` (PEP 440) compares the case only with the Hermes versions it names: a
//   file search paged in discovery order picks a different page on each walker.

interface SearchCase extends FidelityCase {
  files?: Record<string, FileSpec>;
  mtimes?: Record<string, number>;
  args: { pattern: string; path?: string; [k: string]: unknown };
  no_rg?: boolean;
  unordered?: boolean;
  /** The path is given relative to the terminal's cwd (the fidelity workspace), not absolute. */
  relative?: boolean;
  /** The Hermes versions the case is compared with (a PEP 440 specifier); all when absent. */
  hermes?: string;
  /** The directory the case's files are in (a `.no-rg` case shares its base case's). */
  dir?: string;
  ripgrep?: boolean;
}

const HERMES_TOOLS_BATCH = 40;
const fx = new SurfaceFixture('search');
const base = loadCases<SearchCase>('search_files').filter((c) => c.hermes === undefined || satisfies(hermes().version, c.hermes));
/** Whether the compared Hermes orders file search by `order` (0.22: discovery by default). */
const discoveryOrder = new HermesRelease(hermes().version).has('searchFilesOrder');
/** Whether the compared Hermes puts its truncation hint in the JSON as `_hint` (0.22), not as text after it. */
const hintField = new HermesRelease(hermes().version).has('searchFilesHintField');
const cases: SearchCase[] = base.flatMap((c) => [
  { ...c, dir: c.id, ripgrep: true },
  ...(c.no_rg ? [{ ...c, id: `${c.id}.no-rg`, dir: c.id, ripgrep: false }] : []),
]);
let gwNoRg: FidelityGateway | undefined;
const gatewayOf = (c: SearchCase): FidelityGateway => (c.ripgrep ? fx.gw : gwNoRg!);

/** A directory of links to every program on PATH except `name`: a PATH on which `name` is not found. */
function pathWithout(name: string, dir: string): string {
  const seen = new Set<string>([name]);
  for (const d of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    let entries: string[] = [];
    try {
      entries = readdirSync(d);
    } catch {
      continue;
    }
    for (const e of entries) {
      if (seen.has(e)) continue;
      seen.add(e);
      symlinkSync(join(d, e), join(dir, e));
    }
  }
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { env: { PATH: dir }, encoding: 'utf8' });
  if (found.status === 0) throw new Error(`${name} is still on the PATH made without it: ${found.stdout.trim()}`);
  return dir;
}

const caseDir = (c: SearchCase) => `${fx.ws}/${c.dir}`;
function pathOf(c: SearchCase): string {
  const rel = c.args.path;
  if (c.relative) return rel === undefined ? c.dir! : `${c.dir}/${rel}`;
  return rel === undefined ? caseDir(c) : rel.startsWith('/') ? rel : `${caseDir(c)}/${rel}`;
}
const argsOf = (c: SearchCase) => ({ ...c.args, path: pathOf(c) });

const byPathLine = (a: unknown, b: unknown): number => {
  const x = a as { path?: string; line?: number };
  const y = b as { path?: string; line?: number };
  return String(x.path).localeCompare(String(y.path)) || (x.line ?? 0) - (y.line ?? 0);
};

function norm(c: SearchCase, v: unknown): unknown {
  const replace = { [caseDir(c)]: '<dir>', [fx.ws]: '<ws>', ...(c.relative ? { [`${c.dir}/`]: '<dir>/' } : {}) };
  const out = normalise(errorAsHermes(v), { replace });
  if (typeof out !== 'object' || out === null) return out;
  const r = { ...(out as Record<string, unknown>) };
  // count mode's file paths are keys, which normalise leaves alone.
  if (typeof r.counts === 'object' && r.counts !== null) {
    r.counts = Object.fromEntries(Object.entries(r.counts).map(([k, n]) => [normalise(k, { replace }) as string, n]));
  }
  const discovery = discoveryOrder && c.args.target === 'files' && c.args.order !== 'modified';
  if (!c.unordered && !discovery) return r;
  if (Array.isArray(r.matches)) r.matches = [...(r.matches as unknown[])].sort(byPathLine);
  if (Array.isArray(r.files)) r.files = discovery && r.truncated === true ? pageOfCaseFiles(c, r.files as string[]) : [...(r.files as string[])].sort();
  return r;
}

/**
 * A truncated page in discovery order: which of the case's files it holds is the walker's (ripgrep's
 * parallel walk, or find's directory order), so each side is compared by how many distinct files of
 * the case it holds. Anything else (a repeat, a path the case did not write) stays as it was, and
 * the comparison shows it.
 */
function pageOfCaseFiles(c: SearchCase, files: string[]): string | string[] {
  const written = new Set(Object.keys(c.files ?? {}).map((rel) => `<dir>/${rel}`));
  const fromCase = new Set(files.filter((f) => written.has(f)));
  return fromCase.size === files.length ? `${files.length} distinct files of the case` : [...files].sort();
}

/**
 * The gateway's answer over MCP: its structured result, with the truncation hint Hermes appends to
 * its JSON (the gateway's is a text block of the result) as `_hint`, as the driver gives Hermes'.
 */
async function overMcp(c: SearchCase): Promise<unknown> {
  const { result, data } = await viaBridge(gatewayOf(c).client, 'search_files', argsOf(c));
  const hint = result.content.map((b) => b.text ?? '').find((t) => t.startsWith('[Hint: '));
  return hint === undefined ? data : { ...data, _hint: hint };
}

/** The answers compared, kept for the checks after the comparison (per gateway way). */
let hermesSeen: Answers = new Map();
const gatewaySeen = new Map<string, Answers>();
const seen = (via: string, answers: Answers): Answers => {
  gatewaySeen.set(via, answers);
  return answers;
};

/** Python's int() of a pagination argument, or `fallback` where it raises (tools/file_operations.py _coerce_int). */
function pythonInt(v: unknown, fallback: number): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : fallback;
  if (typeof v === 'string' && /^\s*[-+]?\d+(?:_\d+)*\s*$/.test(v)) return Number.parseInt(v.replace(/_/g, ''), 10);
  return fallback;
}

/** Hermes' normalize_search_pagination (tools/file_operations.py): offset at least 0 (default 0), limit at least 1 (default 50). */
function pagination(args: SearchCase['args']): { offset: number; limit: number } {
  return { offset: Math.max(0, pythonInt(args.offset ?? 0, 0)), limit: Math.max(1, pythonInt(args.limit ?? 50, 50)) };
}

/**
 * `{check: next-page-hint}`: Hermes' truncation hint naming offset+limit (tools/file_tools.py), present
 * exactly where the gateway says `truncated: true`. Following Hermes 0.22 it is the result's `_hint`
 * (so a script's result has it too); following 0.19 it is a text block after the result, as Hermes
 * appends it after its JSON, which a hermes_tools script's result does not carry.
 */
function nextPageHint(c: SearchCase | undefined, via: string, gatewayAnswer: unknown): string | undefined {
  if (c === undefined || (gatewayAnswer as { truncated?: unknown } | null)?.truncated !== true) return undefined;
  const { offset, limit } = pagination(c.args);
  const hint = `Results truncated. Use offset=${offset + limit} to see more, or narrow with a more specific pattern or file_glob.`;
  if (hintField) return hint;
  return via === 'mcp' ? `[Hint: ${hint}]` : undefined;
}

type Match = { path: string; line: number; content: string };
/** Hermes' path-grouped `matches_text` (each path on its line, then `  <line>: <content>` rows) read back as the matches it groups. */
function matchesOfText(text: unknown): Match[] | undefined {
  if (typeof text !== 'string') return undefined;
  const out: Match[] = [];
  let path: string | undefined;
  for (const row of text.split('\n')) {
    const m = /^ {2}(\d+): (.*)$/s.exec(row);
    if (!m) path = row;
    else if (path === undefined) return undefined;
    else out.push({ path, line: Number(m[1]), content: m[2]! });
  }
  return out;
}
const caseById = new Map(cases.map((c) => [c.id, c]));

compareSurface<SearchCase>({
  surface: 'search_files',
  cases,
  fixture: fx,
  async setUp() {
    ensurePackage(RIPGREP);
    for (const c of base) {
      writeFiles(join(fx.ws, c.id), c.files);
      for (const [rel, seconds] of Object.entries(c.mtimes ?? {})) utimesSync(join(fx.ws, c.id, rel), seconds, seconds);
    }
    await fx.gateway();
    const noRg = pathWithout('rg', fx.dir('path'));
    gwNoRg = await fx.gateway({ home: fx.hermesHome('gw-norg'), env: { PATH: noRg }, inherited: { ...(process.env as Record<string, string>), PATH: noRg } });
  },
  async hermes(list) {
    const input = { cases: list.map((c) => ({ id: c.id, args: argsOf(c), ripgrep: c.ripgrep })) };
    const answers = await fx.driver('search_files.py', input, { TERMINAL_CWD: fx.ws }, 600_000);
    hermesSeen = new Map(list.map((c) => [c.id, norm(c, answers.get(c.id))]));
    return hermesSeen;
  },
  gateway: {
    mcp: async (list) => seen('mcp', await oneByOne(list, async (c) => norm(c, await overMcp(c)))),
    async hermes_tools(list) {
      // One script makes at most execute_code's tool-call limit of calls: the cases go in batches.
      const out: Answers = new Map();
      for (const ripgrep of [true, false]) {
        const these = list.filter((c) => c.ripgrep === ripgrep);
        for (let at = 0; at < these.length; at += HERMES_TOOLS_BATCH) {
          const batch = these.slice(at, at + HERMES_TOOLS_BATCH);
          const results = await (ripgrep ? fx.gw : gwNoRg!).hermesTools(batch.map((c) => ['search_files', argsOf(c)]));
          batch.forEach((c, i) => out.set(c.id, norm(c, results[i])));
        }
      }
      return seen('hermes_tools', out);
    },
  },
  checks: {
    // The gateway's answer on a host without ripgrep is its answer to the same search (same way) with ripgrep.
    'as-with-ripgrep': ({ caseId, via, field, gateway: g }) => {
      const withRg = gatewaySeen.get(via);
      const base = caseId.replace(/\.no-rg$/, '');
      return base !== caseId && withRg !== undefined && withRg.has(base) && isDeepStrictEqual(g, valueAt(withRg.get(base), field));
    },
    'next-page-hint': ({ caseId, via, field, gateway: g, gatewayAnswer }) => field === '_hint' && g === nextPageHint(caseById.get(caseId), via, gatewayAnswer),
    // The matches Hermes' matches_text lists, as the structured list (sorted as the case compares its matches).
    'matches-of-hermes-text': ({ caseId, field, gateway: g, hermesAnswer }) => {
      const listed = matchesOfText((hermesAnswer as { matches_text?: unknown } | null)?.matches_text);
      const c = caseById.get(caseId);
      if (field !== 'matches' || listed === undefined || c === undefined) return false;
      return isDeepStrictEqual(g, c.unordered ? [...listed].sort(byPathLine) : listed);
    },
  },
});

test('search_files: where search-files-unreadable-numbers-refused applies, the gateway refuses the argument Hermes could not read, and only that', () => {
  const d = divergences().find((x) => x.id === 'search-files-unreadable-numbers-refused');
  const ids = d !== undefined && appliesTo(d, hermes().version) ? (d.cases ?? []) : [];
  const caseArgs = new Map(cases.map((c) => [c.id, c.args]));
  const shown = new Set<string>();
  for (const [via, answers] of gatewaySeen) {
    for (const id of ids) {
      if (!answers.has(id)) continue;
      const g = answers.get(id) as Record<string, unknown>;
      const h = hermesSeen.get(id) as Record<string, unknown>;
      const arg = Object.keys(caseArgs.get(id)!).find((k) => k === 'offset' || k === 'limit');
      assert.deepEqual(Object.keys(g).sort(), ['code', 'error'], `${id} (${via}): ${JSON.stringify(g)}`);
      assert.equal(g.code, 'INVALID_ARGUMENTS', `${id} (${via})`);
      assert.match(String(g.error), new RegExp(`^invalid arguments for search_files: /${arg} must be integer$`), `${id} (${via})`);
      // Hermes searched with its default (or 1 for true) in its place.
      assert.equal(typeof h.total_count, 'number', `${id}: Hermes answered ${JSON.stringify(h)}`);
      shown.add(id);
    }
  }
  assert.deepEqual(ids.filter((id) => !shown.has(id)), []);
});
