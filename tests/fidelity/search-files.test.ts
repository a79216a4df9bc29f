import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { readdirSync, symlinkSync, utimesSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { satisfies } from '@renovatebot/pep440';
import { ensurePackage, RIPGREP } from '../../scripts/test-prerequisites.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { hermes } from '../helpers/hermes.js';
import { viaBridge } from '../helpers/gateway.js';
import { appliesTo } from '../../scripts/differences-from-hermes.js';
import { compareSurface, divergences, errorAsHermes, loadCases, normalise, oneByOne, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
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
//   find's directory order without it, is no order a second walker can repeat);
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
  if (Array.isArray(r.files)) r.files = [...(r.files as string[])].sort();
  return r;
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
