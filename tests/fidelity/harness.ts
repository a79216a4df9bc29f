import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { appliesTo, checksOf, listedDivergences, type ListedDivergence } from '../../scripts/differences-from-hermes.js';
import { describePredicate, holds, type Check } from '../../scripts/divergence-predicates.js';
import { FIDELITY_REPORT_DIR, type FidelityTally } from '../../scripts/fidelity-report.js';
import { packageRoot } from '../../shared/package-root.js';
import { copyOfHermesHome, hermes, hermesEnv, runDriver, type HomeSpec } from '../helpers/hermes.js';
import { tempDirs } from '../helpers/temp.js';
import { startFidelityGateway, type FidelityGateway, type FidelityGatewayOptions } from './workspace.js';
import { cachedHermesAnswers } from './hermes-cache.js';

// The fidelity suite: the same case goes to Hermes' own function (a driver in drivers/, run in the
// pinned Hermes venv) and to the gateway (over MCP, as a client calls it, and through
// execute_code's hermes_tools where the surface exists there). Both answers are normalised the one
// way written down here (normalise), compared field by field, and each case is judged:
//
// - equal:      no field differs;
// - divergent:  every differing field is covered by an intended divergence (divergences/<surface>.yaml,
//               its format in the README there) that applies to this case and this way of reaching
//               the gateway, AND the gateway's value there satisfies that entry's predicate for the
//               field (what the gateway answers: a constant, Hermes' value transformed, a check...);
// - different:  anything else. A different case fails its surface.
//
// An entry only permits a difference, so the list is also held true the other way: a listed
// divergence that no case of its surface shows fails, and so does a case an entry lists that does
// not show that entry (an answer that became equal to Hermes', or one no longer matching the
// predicate). Each surface has the minimum number of cases it promises (MIN_CASES). The suite runs
// once per Hermes pin (HERMES_TEST_PIN, tests/helpers/hermes.ts): an entry scoped to some Hermes
// versions (`hermes:`) applies only when comparing with one of them. Every surface's tally is
// written to FIDELITY_REPORT_DIR; the test runner prints them as one table after the run. With
// HMCP_FIDELITY_DUMP set to a directory, every verdict is written there too (<pin>/<surface>.json),
// to read the values an entry's predicates are checked against.
//
// A surface's test states what is particular to it: its cases, how Hermes' driver and the gateway
// are asked, how their answers are normalised. The rest is here: compareSurface runs the
// comparison, and a SurfaceFixture holds what most surfaces set up alike (temporary directories,
// a workspace, gateways serving it, the driver run in a fresh Hermes home) and removes it after.

export const FIDELITY_DIR = join(packageRoot(), 'tests', 'fidelity');

/** The least number of cases each surface is compared on. */
export const MIN_CASES: Readonly<Record<string, number>> = {
  read_file: 130,
  write_file: 60,
  patch: 60,
  search_files: 50,
  terminal: 40,
  process: 15,
  terminal_schema: 20,
  command_guards: 300,
  redaction: 400,
  session_search: 30,
  cronjob: 30,
  skills: 50,
  startup_context: 10,
  hermes_tools: 10,
  honcho_identity: 10,
  honcho_tools: 15,
  browser: 20,
  file_state: 20,
};

/** One case of a surface, as its data file (cases/<surface>.yaml) gives it. */
export interface FidelityCase {
  id: string;
  [field: string]: unknown;
}

/** The cases of `surface` (cases/<surface>.yaml: a list of mappings, each with a unique id). */
export function loadCases<C extends FidelityCase = FidelityCase>(surface: string): C[] {
  const cases = parse(readFileSync(join(FIDELITY_DIR, 'cases', `${surface}.yaml`), 'utf8')) as C[];
  if (!Array.isArray(cases)) throw new Error(`cases/${surface}.yaml is not a list`);
  const seen = new Set<string>();
  for (const c of cases) {
    if (typeof c.id !== 'string' || c.id === '') throw new Error(`cases/${surface}.yaml: a case without an id`);
    if (seen.has(c.id)) throw new Error(`cases/${surface}.yaml: case id ${c.id} twice`);
    seen.add(c.id);
  }
  return cases;
}

/** One intended difference from Hermes (divergences/<surface>.yaml; the format is in the README there). */
export type Divergence = ListedDivergence;

let listed: Divergence[] | undefined;
/** Every intended divergence, from divergences/. */
export function divergences(): Divergence[] {
  listed ??= listedDivergences();
  return listed;
}

/** The dotted paths at which `a` and `b` differ (a field missing on one side counts as differing). */
export function differingFields(a: unknown, b: unknown, path = ''): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const bothObjects = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) return [path || '.'];
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort();
  return keys.flatMap((k) => differingFields(ra[k], rb[k], path ? `${path}.${k}` : k));
}

/**
 * The concrete path at which field pattern `pattern` covers the differing field `field` (a pattern
 * covers the path itself and everything below it; `.` covers the whole answer), or undefined.
 */
export function coveredAt(pattern: string, field: string): string | undefined {
  if (pattern === '.') return '.';
  if (field === '.') return undefined;
  const p = pattern.split('.');
  const f = field.split('.');
  if (p.length > f.length || !p.every((seg, i) => seg === '*' || seg === f[i])) return undefined;
  return f.slice(0, p.length).join('.');
}

/** The value at a dotted path (`.`: the value itself); undefined where the path does not lead. */
export function valueAt(value: unknown, path: string): unknown {
  if (path === '.') return value;
  let v = value;
  for (const seg of path.split('.')) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

export interface Normalisation {
  /** Literal strings replaced wherever they occur (longest first): paths of the case's directories. */
  replace?: Record<string, string>;
  /** Fields (any depth) whose value changes from run to run: replaced by `<volatile>` when present. */
  volatile?: string[];
}

/** The one normalisation both answers go through before they are compared. */
export function normalise(value: unknown, how: Normalisation): unknown {
  const pairs = Object.entries(how.replace ?? {}).sort((x, y) => y[0].length - x[0].length);
  const volatile = new Set(how.volatile ?? []);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return pairs.reduce((s, [from, to]) => (from === '' ? s : s.split(from).join(to)), v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = volatile.has(k) ? '<volatile>' : walk(x);
      return out;
    }
    return v;
  };
  return walk(value);
}

export type VerdictKind = 'equal' | 'divergent' | 'different';

export interface Verdict {
  case: string;
  /** Which way the gateway was reached (mcp, hermes_tools, ...). */
  via: string;
  verdict: VerdictKind;
  /** The fields that differ. */
  fields: string[];
  /** The divergences that cover them. */
  divergences: string[];
  /** Where an entry covered a differing field but its predicate did not hold: which, and the value. */
  refused: string[];
  gateway: unknown;
  hermes: unknown;
}

/** One surface's comparisons, tallied for the report. */
export class Surface {
  readonly verdicts: Verdict[] = [];
  private readonly listed: Divergence[];
  private readonly missingChecks: string[];

  /**
   * `checks`: the named checks this surface's entries may use in their predicates; `entries`: the
   * divergences judged against (the listed ones of this surface by default).
   */
  constructor(
    readonly name: string,
    private readonly checks: Readonly<Record<string, Check>> = {},
    entries: readonly Divergence[] = divergences(),
  ) {
    if (!(name in MIN_CASES)) throw new Error(`fidelity surface ${name} has no MIN_CASES entry`);
    const ofSurface = entries.filter((d) => d.surface === name);
    this.missingChecks = [...new Set(ofSurface.flatMap((d) => checksOf(d).filter((c) => !(c in checks)).map((c) => `${d.id} names the check ${c}, which this surface does not provide`)))];
    this.listed = ofSurface.filter((d) => appliesTo(d, hermes().version));
  }

  /** Compares one case's two answers (already normalised) and records the verdict. */
  judge(caseId: string, gateway: unknown, hermes: unknown, via = 'mcp'): Verdict {
    const fields = differingFields(gateway, hermes);
    const applying = this.listed.filter((d) => (!d.cases || d.cases.includes(caseId)) && (!d.via || d.via.includes(via)));
    const used = new Set<string>();
    const refused = new Set<string>();
    // A differing field is intended when an applying entry covers it and the entry's predicate
    // holds for the gateway's value there; every entry whose predicate holds is shown by the case.
    const covered = (field: string): boolean => {
      const refusals: string[] = [];
      let ok = false;
      for (const d of applying) {
        for (const [pattern, predicate] of Object.entries(d.fields)) {
          const at = coveredAt(pattern, field);
          if (at === undefined) continue;
          const g = valueAt(gateway, at);
          if (holds(predicate, { caseId, via, field: at, gateway: g, hermes: valueAt(hermes, at), gatewayAnswer: gateway, hermesAnswer: hermes, checks: this.checks })) {
            used.add(d.id);
            ok = true;
          } else refusals.push(`${d.id} says \`${at}\` is ${describePredicate(predicate)}; the gateway answered ${JSON.stringify(g) ?? 'nothing'}`);
        }
      }
      if (!ok) for (const r of refusals) refused.add(r);
      return ok;
    };
    const uncovered = fields.filter((f) => !covered(f));
    const verdict: VerdictKind = fields.length === 0 ? 'equal' : uncovered.length === 0 ? 'divergent' : 'different';
    const v: Verdict = { case: caseId, via, verdict, fields, divergences: [...used], refused: verdict === 'different' ? [...refused] : [], gateway, hermes };
    this.verdicts.push(v);
    return v;
  }

  /** The case ids compared at least once. */
  get caseIds(): Set<string> {
    return new Set(this.verdicts.map((v) => v.case));
  }

  /** What is wrong with this surface's run: different cases, unseen divergences, too few cases. */
  problems(): string[] {
    const out: string[] = [];
    for (const v of this.verdicts.filter((x) => x.verdict === 'different')) {
      const why = v.refused.map((r) => `\n  not as listed: ${r}`).join('');
      out.push(`${this.name}/${v.case} (${v.via}) differs in ${v.fields.join(', ')}:${why}\n  gateway: ${JSON.stringify(v.gateway)}\n  hermes:  ${JSON.stringify(v.hermes)}`);
    }
    out.push(...this.missingChecks.map((m) => `${this.name}: ${m}`));
    const seen = new Set(this.verdicts.flatMap((v) => v.divergences));
    for (const d of this.listed) {
      if (!seen.has(d.id)) {
        out.push(`${this.name}: the listed divergence ${d.id} is not shown by any case (remove it or add the case)`);
        continue;
      }
      // Every case an entry lists shows it, on some way the entry applies to.
      for (const id of d.cases ?? []) {
        const of = this.verdicts.filter((v) => v.case === id && (!d.via || d.via.includes(v.via)));
        if (of.length === 0) out.push(`${this.name}: ${d.id} lists the case ${id}, which was not compared${d.via ? ` by way of ${d.via.join(' or ')}` : ''}`);
        else if (!of.some((v) => v.divergences.includes(d.id))) out.push(`${this.name}: ${d.id} lists the case ${id}, which does not show it (${of.map((v) => `${v.via}: ${v.verdict}`).join(', ')}); remove it from the list`);
      }
    }
    const min = MIN_CASES[this.name]!;
    if (this.caseIds.size < min) out.push(`${this.name}: ${this.caseIds.size} cases compared, at least ${min} promised`);
    return out;
  }

  /** Writes this surface's tally for the end-of-run table. */
  report(): void {
    const { pin, version } = hermes();
    const dir = join(FIDELITY_REPORT_DIR, pin);
    mkdirSync(dir, { recursive: true });
    const count = (k: VerdictKind) => new Set(this.verdicts.filter((v) => v.verdict === k).map((v) => `${v.case}\0${v.via}`)).size;
    const tally: FidelityTally = { surface: this.name, pin, hermes: version, cases: this.caseIds.size, comparisons: this.verdicts.length, equal: count('equal'), divergent: count('divergent'), different: count('different') };
    writeFileSync(join(dir, `${this.name}.json`), JSON.stringify(tally) + '\n');
    const dump = process.env.HMCP_FIDELITY_DUMP;
    if (dump) {
      mkdirSync(join(dump, pin), { recursive: true });
      writeFileSync(join(dump, pin, `${this.name}.json`), JSON.stringify(this.verdicts, null, 1) + '\n');
    }
  }
}

/**
 * Runs a fidelity driver (drivers/<name>) in the Hermes venv (or with `python`, an oracle's) with
 * HERMES_HOME `home`: `input` on stdin, its answer (the last stdout line) as JSON. `cwd`: the
 * directory it runs in (its HERMES_HOME when not given: runDriver).
 */
export function runOracle<T>(name: string, input: unknown, home: string, env: Record<string, string> = {}, timeoutMs = 120_000, python?: string, cwd?: string): Promise<T> {
  return runDriver<T>(join(FIDELITY_DIR, 'drivers', name), input, hermesEnv(home, { HOME: home, ...env }), timeoutMs, python, cwd);
}

/** Answers by case id: Hermes' (from a driver) or the gateway's (one way of reaching it). */
export type Answers = Map<string, unknown>;

/** A driver's list of {id, result | raised} as answers by case id (a raise answers `{ raised }`). */
export function oracleAnswers(list: Array<{ id: string; result?: unknown; raised?: string }>): Answers {
  return new Map(list.map((a) => [a.id, a.raised !== undefined ? { raised: a.raised } : a.result]));
}

/** Answers (a driver's) each normalised by `norm`. */
export function normalisedAnswers(answers: Answers, norm: (answer: unknown) => unknown): Answers {
  return new Map([...answers].map(([id, a]) => [id, norm(a)]));
}

/** Answers from a function called once per case, in order. */
export async function oneByOne<C extends FidelityCase>(cases: C[], answer: (c: C) => Promise<unknown>): Promise<Answers> {
  const out: Answers = new Map();
  for (const c of cases) out.set(c.id, await answer(c));
  return out;
}

/** Where a fixture's gateway serves: by default the workspace, with a fresh copy of the default Hermes home. */
export interface FixtureGatewayOptions extends FidelityGatewayOptions {
  home?: string;
  roots?: string;
}

/**
 * What most surfaces set up alike, named `hmcp-fid-<tag>-…` and removed after the run (by
 * compareSurface): temporary directories, the workspace, the gateways started through it, and
 * each run of the surface's driver in a Hermes home of its own.
 */
export class SurfaceFixture {
  private readonly temp = tempDirs();
  private workspace = '';
  private readonly gateways: FidelityGateway[] = [];

  constructor(private readonly tag: string) {}

  /** The workspace: a directory of its own, made on first use. */
  get ws(): string {
    this.workspace ||= this.dir('');
    return this.workspace;
  }

  /** A new temporary directory of this surface (`what` is part of its name). */
  dir(what: string): string {
    return this.temp.make(what ? `hmcp-fid-${this.tag}-${what}-` : `hmcp-fid-${this.tag}-`);
  }

  /** A new copy of the Hermes home `spec` describes (the default one when empty). */
  hermesHome(what: string, spec: HomeSpec = {}): string {
    return copyOfHermesHome(this.dir(what), spec);
  }

  /** Starts a gateway, closed after the run (by default serving the workspace with a new copy of the default Hermes home). */
  async gateway({ home, roots, ...options }: FixtureGatewayOptions = {}): Promise<FidelityGateway> {
    const gw = await startFidelityGateway(home ?? this.hermesHome('gw'), roots ?? this.ws, options);
    this.gateways.push(gw);
    return gw;
  }

  /** The first gateway started: the one gateway most surfaces ask. */
  get gw(): FidelityGateway {
    const gw = this.gateways[0];
    if (!gw) throw new Error(`fidelity ${this.tag}: no gateway was started`);
    return gw;
  }

  /** Runs drivers/`name` (runOracle) in a new copy of the default Hermes home: its answers by case id. */
  async driver(name: string, input: unknown, env: Record<string, string> = {}, timeoutMs?: number): Promise<Answers> {
    return oracleAnswers(await runOracle(name, input, this.hermesHome('hermes'), env, timeoutMs));
  }

  /** Closes the gateways and removes the directories. */
  async close(): Promise<void> {
    for (const gw of this.gateways.splice(0)) await gw.close();
    this.temp.removeAll();
  }
}

export interface SurfaceSpec<C extends FidelityCase> {
  surface: string;
  cases: C[];
  /** The surface's fixture: closed after tearDown. */
  fixture?: SurfaceFixture;
  /** Everything the cases need (directories, a gateway), before any answer is asked for. */
  setUp?: () => Promise<void>;
  tearDown?: () => Promise<void>;
  /** Hermes' answers, already normalised. */
  hermes: (cases: C[]) => Promise<Answers>;
  /** The gateway's answers, by way of reaching it (mcp, hermes_tools, ...), already normalised; a way may answer only some cases. */
  gateway: Record<string, (cases: C[]) => Promise<Answers>>;
  /** The named checks this surface's divergences may use in their predicates (`{check: name}`). */
  checks?: Readonly<Record<string, Check>>;
}

/**
 * The node:test cases of one surface: answers are gathered once (before), each case's comparison
 * is a test of its own, and a last test fails on a missing answer, an unused divergence or too few
 * cases, and writes the surface's tally.
 */
export function compareSurface<C extends FidelityCase>(spec: SurfaceSpec<C>): void {
  const surface = new Surface(spec.surface, spec.checks);
  let hermesAnswers: Answers = new Map();
  const gatewayAnswers = new Map<string, Answers>();
  before(async () => {
    await spec.setUp?.();
    hermesAnswers = await cachedHermesAnswers(spec.surface, () => spec.hermes(spec.cases));
    for (const [via, answer] of Object.entries(spec.gateway)) gatewayAnswers.set(via, await answer(spec.cases));
  });
  after(async () => {
    await spec.tearDown?.();
    await spec.fixture?.close();
  });
  for (const c of spec.cases) {
    test(`${spec.surface}: ${c.id}`, () => {
      assert.ok(hermesAnswers.has(c.id), `Hermes gave no answer for ${c.id}`);
      const verdicts = [...gatewayAnswers].filter(([, answers]) => answers.has(c.id)).map(([via, answers]) => surface.judge(c.id, answers.get(c.id), hermesAnswers.get(c.id), via));
      assert.ok(verdicts.length > 0, `no way of reaching the gateway answered ${c.id}`);
      const different = surface.problems().filter((p) => p.startsWith(`${spec.surface}/${c.id} (`));
      assert.deepEqual(different, [], different.join('\n'));
    });
  }
  test(`${spec.surface}: every listed divergence is shown, and at least ${MIN_CASES[spec.surface]} cases`, () => {
    surface.report();
    const problems = surface.problems().filter((p) => !p.startsWith(`${spec.surface}/`));
    assert.deepEqual(problems, []);
  });
}

/**
 * A gateway error as Hermes words its errors, for comparison: the gateway answers
 * `{ error: CODE, message, ...hints }` (its stable codes), Hermes `{ error: message, ...hints }`.
 * The message then compares with Hermes' error text, and only `code` is the gateway's own
 * (the `stable-error-codes` divergences). Anything else is returned as it is.
 */
export function errorAsHermes(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const { error, message, ...rest } = value as Record<string, unknown>;
  if (typeof error !== 'string' || !/^[A-Z][A-Z0-9_]+$/.test(error) || typeof message !== 'string') return value;
  return { ...rest, code: error, error: message };
}
