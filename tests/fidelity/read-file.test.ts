import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { satisfies } from '@renovatebot/pep440';
import type { Check } from '../../scripts/divergence-predicates.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import { viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { toolServerStandIn } from '../helpers/hermes-tools.js';
import { compareSurface, errorAsHermes, loadCases, normalise, normalisedAnswers, oneByOne, SurfaceFixture, type FidelityCase } from './harness.js';
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

// The named checks read_file's divergences pin their fields with (divergences/read_file.yaml): each
// computes the gateway's answer from the case and Hermes' answer, and holds only for that value.

const byId = new Map(cases.map((c) => [c.id, c]));
const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

/** The stable code each refusal's message (Hermes' words, or the gateway's own) carries. */
const CODE_OF_MESSAGE: ReadonlyArray<readonly [RegExp, string]> = [
  [/^File not found: /, 'FILE_NOT_FOUND'],
  [/^(?:Binary file |Cannot read binary file ')/, 'FILE_BINARY'],
  [/^Cannot read '.*' \(\.\w+\): document extraction failed — /s, 'FILE_EXTRACTION_FAILED'],
  [/^Cannot read '.*': not a regular file /s, 'FILE_NOT_REGULAR'],
  [/^'.*' is a FIFO \(named pipe\), not a regular file /s, 'FILE_NOT_REGULAR'],
  [/^'.*' is outside the allowed roots /s, 'PATH_OUTSIDE_ROOTS'],
  [/^Access denied: /, 'FILE_BLOCKED'],
  [/^invalid arguments for read_file: /, 'INVALID_ARGUMENTS'],
];

/** The page Hermes' normalize_read_pagination reads: int() of each value (a numeric string, a fraction truncated), then clamped. */
function pageOf(args: ReadCase['args']): { offset: number; limit: number } {
  const defaultLimit = new HermesRelease(hermes().version).has('readFileDefaultLimit2000') ? 2000 : 500;
  // Python's float() reads digits grouped by underscores ("1_0.0" is 10).
  const num = (v: unknown) => Number(typeof v === 'string' ? v.replaceAll('_', '') : v);
  return {
    offset: Math.max(1, Math.trunc(num(args.offset ?? 1))),
    limit: Math.max(1, Math.min(2000, Math.trunc(num(args.limit ?? defaultLimit)))),
  };
}

/** The case's file as bytes (the first one it writes), or null when it is not given byte for byte. */
function fileBytes(c: ReadCase): Buffer | null {
  const file = Object.values(c.files ?? {})[0];
  return typeof file === 'string' ? Buffer.from(file) : file && typeof file === 'object' && 'base64' in file ? Buffer.from(file.base64, 'base64') : null;
}

/** The numbers of a page's first and last lines (`N|text` each), or undefined for an empty page. */
function lineSpan(content: unknown): { first: number; last: number } | undefined {
  if (typeof content !== 'string' || content === '') return undefined;
  const first = /^(\d+)\|/.exec(content);
  const last = /(?:^|\n)(\d+)\|[^\n]*$/.exec(content);
  return first && last ? { first: Number(first[1]), last: Number(last[1]) } : undefined;
}

/** The read budget left under the gateway's default result cap (65,536 characters): what its capped pages say they were cut at. */
const CAPPED_READ_BUDGET = 64_512;
/** Characters `s` takes inside a JSON string (what the result cap counts). */
const jsonLength = (s: string): number => JSON.stringify(s).length - 2;

const checks: Record<string, Check> = {
  // The code its message carries (CODE_OF_MESSAGE): a refusal whose code does not fit its words fails.
  'code-of-message': ({ gateway, gatewayAnswer }) => {
    const message = record(gatewayAnswer).error;
    return typeof message === 'string' && CODE_OF_MESSAGE.find(([re]) => re.test(message))?.[1] === gateway;
  },
  // Hermes before 0.22 numbers one line after a page that ends at the file's final newline (or at an
  // offset past the end): the gateway's page is Hermes' without that one line, numbered where the
  // page ends (its last line plus one, within the page's limit), or the offset itself when it is empty.
  'phantom-line-removed': ({ caseId, gateway, hermes: h, gatewayAnswer }) => {
    const c = byId.get(caseId);
    if (c === undefined || typeof gateway !== 'string' || typeof h !== 'string') return false;
    const { offset, limit } = pageOf(c.args);
    const next = gateway === '' ? offset : Math.min(offset + limit, Number(record(gatewayAnswer).total_lines) + 1);
    return h === (gateway === '' ? `${next}|` : `${gateway}\n${next}|`);
  },
  // The count is Hermes' plus the last line, which the file does not end with a newline after.
  'unterminated-last-line-counted': ({ caseId, gateway, hermes: h }) => {
    const c = byId.get(caseId);
    const bytes = c === undefined ? null : fileBytes(c);
    return typeof gateway === 'number' && typeof h === 'number' && gateway === h + 1 && bytes !== null && bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a;
  },
  // A page cut to fit the result cap: Hermes' page up to the gateway's last line, every line whole,
  // within CAPPED_READ_BUDGET, and the next line of Hermes' page would not have fitted.
  'page-cut-at-cap': ({ gateway, hermes: h }) => {
    const span = lineSpan(gateway);
    if (span === undefined || typeof h !== 'string') return false;
    const cut = h.indexOf(`\n${span.last + 1}|`);
    if (cut < 0 || gateway !== h.slice(0, cut)) return false;
    const nextEnd = h.indexOf('\n', cut + 1);
    return jsonLength(gateway) <= CAPPED_READ_BUDGET && jsonLength(h.slice(0, nextEnd < 0 ? h.length : nextEnd)) > CAPPED_READ_BUDGET;
  },
  // The line after the page's last one: a page that ends at line 50 says 51.
  'next-offset-after-page': ({ gateway, gatewayAnswer }) => {
    const span = lineSpan(record(gatewayAnswer).content);
    return span !== undefined && gateway === span.last + 1;
  },
  // Hermes' budget hint (read_file_tool's wording), for the capped budget and the page shown.
  'capped-budget-hint': ({ gateway, gatewayAnswer }) => {
    const a = record(gatewayAnswer);
    const span = lineSpan(a.content);
    if (span === undefined) return false;
    const budget = String(CAPPED_READ_BUDGET).replace(/\B(?=(\d{3})+$)/g, ',');
    const n = span.last - span.first + 1;
    return gateway === `Output truncated at the ${budget}-char read budget after ${n} line(s) (showing lines ${span.first}-${span.last} of ${String(a.total_lines)}). Use offset=${span.last + 1} to continue.`;
  },
  // The refusal names the one argument besides path the case sends, as the integer it must be.
  'argument-must-be-integer': ({ caseId, gateway }) => {
    const c = byId.get(caseId);
    const args = Object.keys(c?.args ?? {}).filter((k) => k !== 'path');
    return args.length === 1 && gateway === `invalid arguments for read_file: /${args[0]} must be integer`;
  },
  // A missing file: Hermes' "File not found" text, then where the gateway looked (confine.ts
  // whereLooked): the absolute path asked for unless Hermes' text already names an absolute,
  // normalised path (the one asked for, or after 0.19 the one it resolved to), and the project
  // roots, which are the workspace here.
  'not-found-says-where': ({ caseId, gateway, hermes: h }) => {
    const c = byId.get(caseId);
    const named = typeof h === 'string' ? /^File not found: (.*)$/s.exec(h)?.[1]?.split('<ws>').join(fx.ws) : undefined;
    if (c === undefined || named === undefined) return false;
    const namesResolvedPath = isAbsolute(named) && resolve(named) === named;
    const lookedFor = namesResolvedPath ? '' : `looked for ${String(norm(resolve(argsOf(c).path)))}; `;
    return gateway === `${String(h)} (${lookedFor}project roots: ${String(norm(fx.ws))})`;
  },
  // The refusal's message is Hermes' own note.
  'hermes-note': ({ gateway, hermesAnswer }) => typeof gateway === 'string' && gateway === record(hermesAnswer).note,
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
    return normalisedAnswers(await fx.driver('read_file.py', { cases: list.map((c) => ({ id: c.id, args: argsOf(c) })) }, { TERMINAL_CWD: fx.ws }), norm);
  },
  gateway: {
    mcp: async (list) => oneByOne(list, async (c) => norm(await fx.gw.call('read_file', argsOf(c)))),
    async hermes_tools(list) {
      const answers = new Map<string, unknown>();
      const viaScript = list.filter((c) => c.hermes_tools !== false);
      for (let i = 0; i < viaScript.length; i += SCRIPT_CALLS) {
        const chunk = viaScript.slice(i, i + SCRIPT_CALLS);
        const results = await hermesToolsViaFile(chunk.map((c) => ['read_file', argsOf(c)]));
        chunk.forEach((c, j) => answers.set(c.id, norm(results[j])));
      }
      return answers;
    },
    mcp_wide_cap: async (list) => oneByOne(list.filter((c) => c.wide_result_cap === true), async (c) => norm(await gwWide!.call('read_file', argsOf(c)))),
  },
  checks,
});

