import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { test } from 'node:test';
import { satisfies } from '@renovatebot/pep440';
import { appliesTo } from '../../scripts/differences-from-hermes.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { toolServerStandIn } from '../helpers/hermes-tools.js';
import { compareSurface, differingFields, divergences, errorAsHermes, loadCases, normalise, normalisedAnswers, oneByOne, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
import { writeFiles, type FidelityGateway, type FileSpec } from './workspace.js';

// read_file against Hermes' read_file_tool (tools/file_tools.py), over MCP and through hermes_tools,
// and (cases marked `wide_result_cap`) over MCP from a gateway whose result cap is above Hermes'
// read budget, so that budget is compared without the gateway's cap in the way.
// Each case's files are written into a directory of its own; `args.path` is relative to it.

/** `times` lines of `line` repeated to `width` characters (code points), each ending in "\n", then `then`. */
interface LinesSpec {
  line: string;
  width: number;
  times: number;
  then?: string;
}

/** A named pipe (Hermes after 0.19 answers it by its kind; 0.19 would wait for a writer). */
interface FifoSpec {
  fifo: true;
}

/** `template` with `{fill}` replaced by `fill` repeated `times` times (a large document, small in the case file). */
interface TemplateSpec {
  template: string;
  fill: string;
  times: number;
}

interface ReadCase extends FidelityCase {
  files?: Record<string, FileSpec | LinesSpec | FifoSpec | TemplateSpec>;
  args: { path: string; offset?: unknown; limit?: unknown };
  /** Also compared from a gateway whose result cap does not bind (the read budget's cases). */
  wide_result_cap?: boolean;
  /** The Hermes versions compared with (a PEP 440 specifier); every one when absent. */
  hermes?: string;
  /**
   * false: not compared through hermes_tools. Only for a case whose answer there is the stub's own
   * default limit (`hermes_tools.read_file(path)`), which the hermes_tools surface compares
   * (its sig-read_file case), not read_file's.
   */
  hermes_tools?: boolean;
}

type CaseFile = FileSpec | LinesSpec | FifoSpec | TemplateSpec;
const isFifo = (spec: CaseFile): spec is FifoSpec => typeof spec === 'object' && 'fifo' in spec;
function fileSpec(spec: Exclude<CaseFile, FifoSpec>): FileSpec {
  if (typeof spec === 'object' && 'line' in spec) return { repeat: spec.line.repeat(spec.width) + '\n', times: spec.times, then: spec.then };
  if (typeof spec === 'object' && 'template' in spec) return spec.template.split('{fill}').join(spec.fill.repeat(spec.times));
  return spec;
}
const filesOf = (c: ReadCase): Record<string, FileSpec> =>
  Object.fromEntries(Object.entries(c.files ?? {}).flatMap(([k, v]) => (isFifo(v) ? [] : [[k, fileSpec(v)] as const])));
const fifosOf = (c: ReadCase): string[] => Object.entries(c.files ?? {}).flatMap(([k, v]) => (isFifo(v) ? [k] : []));

/** Calls per execute_code script: a script may make 50 tool calls (Hermes' cap, and the gateway's). */
const SCRIPT_CALLS = 40;
/** A result cap well above Hermes' 100,000-character read budget, JSON escaping included. */
const WIDE_RESULT_CAP = 1_000_000;

const fx = new SurfaceFixture('read');
const cases = loadCases<ReadCase>('read_file').filter((c) => c.hermes === undefined || satisfies(hermes().version, c.hermes));
let gwWide: FidelityGateway | undefined;
let hermesSeen: Answers = new Map();
const gatewaySeen = new Map<string, Answers>();

const argsOf = (c: ReadCase) => ({ ...c.args, path: isAbsolute(c.args.path) ? c.args.path : join(fx.ws, c.id, c.args.path) });
const norm = (v: unknown) => normalise(errorAsHermes(v), { replace: { [fx.ws]: '<ws>' } });

/**
 * gw.hermesTools, with the results written by the script to a file instead of printed: a page of
 * read_file can be 100,000 characters, past execute_code's stdout cap (which is not this surface).
 */
async function hermesToolsViaFile(calls: Array<[string, Record<string, unknown>]>): Promise<unknown[]> {
  const out = join(fx.dir('out'), 'results.json');
  const code = [
    'import base64, json, hermes_tools',
    `calls = json.loads(base64.b64decode(${JSON.stringify(Buffer.from(JSON.stringify(calls)).toString('base64'))}))`,
    'out = [getattr(hermes_tools, name)(**kwargs) for name, kwargs in calls]',
    `open(${JSON.stringify(out)}, "w", encoding="utf-8").write(json.dumps(out))`,
    'print("written")',
  ].join('\n');
  const r = (await viaBridge(fx.gw.client, 'execute_code', { code })).data as { status?: string; output?: string };
  if (r.status !== 'success' || String(r.output).trim() !== 'written') throw new Error(`execute_code failed: ${JSON.stringify(r)}`);
  return JSON.parse(readFileSync(out, 'utf8')) as unknown[];
}

const seen = (via: string, answers: Answers): Answers => {
  gatewaySeen.set(via, answers);
  return answers;
};

compareSurface<ReadCase>({
  surface: 'read_file',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) {
      writeFiles(join(fx.ws, c.id), filesOf(c));
      for (const name of fifosOf(c)) execFileSync('mkfifo', [join(fx.ws, c.id, name)]);
    }
    // The gateways front the compared Hermes' interpreter (its own document extractor, which read_file
    // calls), with the tool server's stand-in in place of Hermes' own (read_file's answers do not come
    // from it) not offering vision_analyze, whose being served changes read_file's binary refusals
    // (compared as read-file-vision-pointer-when-served, and -documents against Hermes before 0.22.2).
    const env = { HERMES_AGENT_PYTHON: hermes().python, HERMES_MCP_HERMES_TOOLS_COMMAND: toolServerStandIn(fx.dir('tool-server'), '--without', 'vision_analyze').command };
    await fx.gateway({ env });
    gwWide = await fx.gateway({ env, home: fx.hermesHome('gw-wide'), limits: { maxOutputChars: WIDE_RESULT_CAP } });
  },
  async hermes(list) {
    hermesSeen = normalisedAnswers(await fx.driver('read_file.py', { cases: list.map((c) => ({ id: c.id, args: argsOf(c) })) }, { TERMINAL_CWD: fx.ws }), norm);
    return hermesSeen;
  },
  gateway: {
    mcp: async (list) => seen('mcp', await oneByOne(list, async (c) => norm(await fx.gw.call('read_file', argsOf(c))))),
    async hermes_tools(list) {
      const answers = new Map<string, unknown>();
      const viaScript = list.filter((c) => c.hermes_tools !== false);
      for (let i = 0; i < viaScript.length; i += SCRIPT_CALLS) {
        const chunk = viaScript.slice(i, i + SCRIPT_CALLS);
        const results = await hermesToolsViaFile(chunk.map((c) => ['read_file', argsOf(c)]));
        chunk.forEach((c, j) => answers.set(c.id, norm(results[j])));
      }
      return seen('hermes_tools', answers);
    },
    mcp_wide_cap: async (list) =>
      seen('mcp_wide_cap', await oneByOne(list.filter((c) => c.wide_result_cap === true), async (c) => norm(await gwWide!.call('read_file', argsOf(c))))),
  },
});

// Two divergences cover a whole field (content, total_lines) in the cases they list; these checks
// hold them to what they say, so nothing else in those fields can differ unnoticed.

/** The cases a divergence lists, when it applies to the Hermes compared with (none otherwise). */
function listedCases(id: string): string[] {
  const d = divergences().find((x) => x.id === id);
  return d !== undefined && appliesTo(d, hermes().version) ? (d.cases ?? []) : [];
}
const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
/** The pairs (gateway way, case) where `field` differs, the cap's cases only from the gateway whose cap does not bind. */
function differing(caseIds: string[], field: string): Array<{ via: string; id: string; g: Record<string, unknown>; h: Record<string, unknown> }> {
  const capCases = new Set(listedCases('read-file-budget-fits-result-cap'));
  const out = [];
  for (const [via, answers] of gatewaySeen) {
    for (const id of caseIds) {
      if (!answers.has(id) || (capCases.has(id) && via !== 'mcp_wide_cap')) continue;
      const g = record(answers.get(id));
      const h = record(hermesSeen.get(id));
      if (differingFields(g[field], h[field]).length > 0) out.push({ via, id, g, h });
    }
  }
  return out;
}

test('read_file: where read-file-no-phantom-line applies, Hermes only adds the empty line after the last one', () => {
  const caseArgs = new Map(cases.map((c) => [c.id, c.args]));
  const ids = listedCases('read-file-no-phantom-line');
  const pairs = differing(ids, 'content');
  for (const { via, id, g, h } of pairs) {
    const args = caseArgs.get(id)!;
    // Hermes' normalize_read_pagination: int() of the value (a numeric string, a fraction truncated), then clamped.
    const offset = Math.max(1, Math.trunc(Number(args.offset ?? 1)));
    const limit = Math.max(1, Math.min(2000, Math.trunc(Number(args.limit ?? (new HermesRelease(hermes().version).has('readFileDefaultLimit2000') ? 2000 : 500)))));
    const shown = String(g.content);
    // The line after the page: after its last line, or the offset itself when nothing is shown.
    const next = shown === '' ? offset : Math.min(offset + limit, Number(g.total_lines) + 1);
    const expected = shown === '' ? `${next}|` : `${shown}\n${next}|`;
    assert.equal(h.content, expected, `${id} (${via}): Hermes' content is not the gateway's plus the line ${next}|`);
  }
  // Every listed case shows it somewhere (a case that stopped showing it should leave the list).
  const shown = new Set(pairs.map((p) => p.id));
  assert.deepEqual(ids.filter((id) => !shown.has(id)), []);
});

test('read_file: where read-file-last-line-counted applies, Hermes counts one line fewer and the file does not end in a newline', () => {
  const ids = listedCases('read-file-last-line-counted');
  const pairs = differing(ids, 'total_lines');
  for (const { via, id, g, h } of pairs) {
    assert.equal(h.total_lines, Number(g.total_lines) - 1, `${id} (${via})`);
    const file = Object.values(cases.find((c) => c.id === id)!.files ?? {})[0];
    const bytes = typeof file === 'string' ? Buffer.from(file) : file && 'base64' in file ? Buffer.from(file.base64, 'base64') : null;
    assert.ok(bytes !== null && bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a, `${id}: its file ends in a newline`);
  }
  const shown = new Set(pairs.map((p) => p.id));
  assert.deepEqual(ids.filter((id) => !shown.has(id)), []);
});

test('read_file: where read-file-schema-validated-arguments applies, the gateway refuses the argument Hermes could not read, and only that', () => {
  const caseArgs = new Map(cases.map((c) => [c.id, c.args]));
  const ids = listedCases('read-file-schema-validated-arguments');
  const shown = new Set<string>();
  for (const [via, answers] of gatewaySeen) {
    for (const id of ids) {
      if (!answers.has(id)) continue;
      const g = record(answers.get(id));
      const h = record(hermesSeen.get(id));
      // The one argument in the case besides path is the one named, as the integer it must be.
      const arg = Object.keys(caseArgs.get(id)!).find((k) => k !== 'path');
      assert.deepEqual(Object.keys(g).sort(), ['code', 'error'], `${id} (${via}): ${JSON.stringify(g)}`);
      assert.equal(g.code, 'INVALID_ARGUMENTS', `${id} (${via})`);
      assert.match(String(g.error), new RegExp(`^invalid arguments for read_file: /${arg} must be integer$`), `${id} (${via})`);
      // Hermes read the file in its place (its default, or 1 / 0 for true / false).
      assert.equal(typeof h.content, 'string', `${id}: Hermes answered ${JSON.stringify(h)}`);
      shown.add(id);
    }
  }
  assert.deepEqual(ids.filter((id) => !shown.has(id)), []);
});
