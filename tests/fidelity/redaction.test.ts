import assert from 'node:assert/strict';
import { satisfies } from '@renovatebot/pep440';
import { join } from 'node:path';
import { test } from 'node:test';
import { redact, redactCommandOutput } from '../../shared/redact.js';
import { sessionToken, viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { appliesTo, checksOf } from '../../scripts/differences-from-hermes.js';
import { compareSurface, divergences, loadCases, oneByOne, oracleAnswers, runOracle, Surface, SurfaceFixture, type Answers, type Divergence, type FidelityCase } from './harness.js';
import { hidesAll, leakedPieces } from './redaction-judge.js';
import { writeFiles } from './workspace.js';

// Redaction against Hermes' own (agent/redact.py), case by case, in every mode a supported Hermes
// has: the default, code_file=True, file_read=True, a secret-bearing file's content (newer Hermes'
// secret_file=True; 0.19 reads such a file with file_read=True) and terminal output
// (redact_terminal_output with the case's command, `cat sample.txt` when it names none). Each answer
// is the text as each mode leaves it, `{ default, code_file, file_read, secret_file, terminal }`
// (drivers/redaction.py).
//
// The gateway is reached two ways:
// - direct: its redact() (shared/redact.ts) in the same modes, and redactCommandOutput() with the
//   case's command, run where the driver runs (below);
// - mcp (the cases marked `mcp: true`): the text written to files and read back as a client does:
//   terminal `env cat sample.txt` (a command starting with `env` is an environment dump for both:
//   the default mode), execute_code printing it (code_file), read_file (file_read), read_file of a
//   copy named `.bashrc` (a secret-bearing file: secret_file), and the case's command run in the
//   case's directory on the file it names (`file`, else sample.txt) for terminal.
//
// A command's relative operands name files where it runs: Hermes judges them against its process's
// cwd, the gateway against the directory the command ran in. The driver runs in a project directory
// (the workspace, not its HERMES_HOME), and direct() is given the same directory and the driver's
// HERMES_HOME, so `cat config.yaml` names a project's file on both sides.
//
// The gateway redacts what ANY supported Hermes redacts, so against one version it may mask more:
// the divergences whose fields are `{check: hides-all}` accept such a difference only where the
// gateway's answer shows no piece of the text this Hermes' answer hides (redaction-judge.ts), a
// check each pin's run makes against its own Hermes.

interface RedactionCase extends FidelityCase {
  text: string;
  mcp?: boolean;
  /** The command that printed the text (terminal mode); `cat sample.txt` when absent. */
  command?: string;
  /** The file the command reads, relative to the case's directory (mcp cases); sample.txt when absent. */
  file?: string;
}

interface Modes {
  default: string;
  code_file: string;
  file_read: string;
  secret_file: string;
  terminal: string;
}

const MODES: ReadonlyArray<keyof Modes> = ['default', 'code_file', 'file_read', 'secret_file', 'terminal'];

const fx = new SurfaceFixture('redact');
const cases = loadCases<RedactionCase>('redaction');
const byId = new Map(cases.map((c) => [c.id, c]));
/** terminal needs a durable owner: a capability session of the fidelity client. */
let token = '';

const commandOf = (c: RedactionCase): string => c.command ?? 'cat sample.txt';

for (const c of cases) {
  if (typeof c.text !== 'string' || c.text === '') throw new Error(`cases/redaction.yaml: ${c.id} has no text`);
  // Terminal output is stripped before it is redacted (Hermes' terminal_tool does `output.strip()`),
  // and read_file's lines are numbered; an MCP sample is a text both carry unchanged.
  if (c.mcp === true && (c.text !== c.text.trim() || c.text.includes('\r'))) {
    throw new Error(`cases/redaction.yaml: ${c.id} is an MCP sample with surrounding whitespace or a CR`);
  }
  if (c.file !== undefined && (c.mcp !== true || c.command === undefined)) throw new Error(`cases/redaction.yaml: ${c.id} names a file without being an MCP case with a command`);
}

const dirOf = (c: RedactionCase): string => join(fx.ws, c.id);

/** Where both sides run a case's command: the driver's HERMES_HOME (made once) and the workspace as the cwd. */
let where: { hermesHome: string; cwd: string } | undefined;
function place(): { hermesHome: string; cwd: string } {
  where ??= { hermesHome: fx.hermesHome('hermes'), cwd: fx.ws };
  return where;
}

/** Hermes' answers (drivers/redaction.py), run in place(). */
async function hermesModes(list: RedactionCase[]): Promise<Answers> {
  const { hermesHome, cwd } = place();
  return oracleAnswers(await runOracle('redaction.py', { cases: list.map((c) => ({ id: c.id, text: c.text, command: commandOf(c) })) }, hermesHome, {}, undefined, undefined, cwd));
}
const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what}: not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** read_file's content without its `     N|` line numbers: the file's text as the gateway left it. */
async function viaReadFile(c: RedactionCase, path: string): Promise<string> {
  const r = record(await fx.gw.call('read_file', { path }), `read_file ${c.id}`);
  if (typeof r.content !== 'string') throw new Error(`read_file ${c.id}: no content: ${JSON.stringify(r)}`);
  return r.content
    .split('\n')
    .map((line) => {
      const m = /^ *\d+\|/.exec(line);
      if (!m) throw new Error(`read_file ${c.id}: a line without its number: ${JSON.stringify(line)}`);
      return line.slice(m[0].length);
    })
    .join('\n');
}

async function viaTerminal(c: RedactionCase, command: string): Promise<string> {
  const r = record((await viaBridge(fx.gw.client, 'terminal', { command }, token)).data, `terminal ${c.id}`);
  if (r.exit_code !== 0 || typeof r.output !== 'string') throw new Error(`terminal ${c.id} (${command}): ${JSON.stringify(r)}`);
  return r.output;
}

/** The file printed by an execute_code script: its stdout, redacted as code (Hermes' code_execution_tool.py). */
async function viaExecuteCode(c: RedactionCase, path: string): Promise<string> {
  const code = `import sys\nsys.stdout.write(open(${JSON.stringify(path)}, encoding="utf-8").read())\n`;
  const r = record(await fx.gw.call('execute_code', { code }), `execute_code ${c.id}`);
  if (r.status !== 'success' || typeof r.output !== 'string') throw new Error(`execute_code ${c.id}: ${JSON.stringify(r)}`);
  return r.output;
}

function direct(c: RedactionCase): Modes {
  return {
    default: redact(c.text),
    code_file: redact(c.text, { codeFile: true }),
    file_read: redact(c.text, { fileRead: true }),
    secret_file: redact(c.text, { fileRead: true, secretFile: true }),
    terminal: redactCommandOutput(c.text, commandOf(c), place()),
  };
}

/** The `hides-all` check: the gateway's answer in `field` shows nothing of the case's text that Hermes' answer hides. */
function hidesAllOf(caseId: string, field: string, gateway: unknown, hermesAnswer: unknown): boolean {
  const c = byId.get(caseId);
  const mode = field as keyof Modes;
  if (c === undefined || !MODES.includes(mode)) return false;
  const g = (gateway as Partial<Modes>)[mode];
  const h = (hermesAnswer as Partial<Modes>)[mode];
  return typeof g === 'string' && typeof h === 'string' && hidesAll(c.text, h, g);
}

compareSurface<RedactionCase>({
  surface: 'redaction',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) {
      if (c.mcp !== true) continue;
      writeFiles(dirOf(c), { 'sample.txt': c.text, 'rc/.bashrc': c.text, ...(c.file !== undefined ? { [c.file]: c.text } : {}) });
    }
    token = await sessionToken((await fx.gateway()).client);
  },
  hermes: hermesModes,
  gateway: {
    direct: async (list): Promise<Answers> => new Map(list.map((c): [string, Modes] => [c.id, direct(c)])),
    mcp: (list) =>
      oneByOne(
        list.filter((c) => c.mcp === true),
        async (c): Promise<Modes> => ({
          default: await viaTerminal(c, `env cat ${shellQuote(join(dirOf(c), 'sample.txt'))}`),
          code_file: await viaExecuteCode(c, join(dirOf(c), 'sample.txt')),
          file_read: await viaReadFile(c, join(dirOf(c), 'sample.txt')),
          secret_file: await viaReadFile(c, join(dirOf(c), 'rc', '.bashrc')),
          terminal: await viaTerminal(c, `cd ${shellQuote(dirOf(c))} && ${commandOf(c)}`),
        }),
      ),
  },
  checks: { 'hides-all': (c) => hidesAllOf(c.caseId, c.field, c.gatewayAnswer, c.hermesAnswer) },
});

// The (case, modes) pairs where the gateway shows a piece of the text this Hermes hides, each for the
// stated reason of a divergence without a condition that lists the case (and the modes among its
// fields, where it names fields); `hermes`: the versions the pair differs on, where not every version
// the divergence applies to. Nothing else is excused from the leak check below, and every pair
// listed must be needed on each version it applies to.
const LEAK_EXCUSED: ReadonlyArray<{ divergence: string; case: string; modes: ReadonlyArray<keyof Modes>; hermes?: string }> = [
  // Hermes masks the next line: `Authorization:`, `Authorization: Bearer`, `API_KEY=` end their line.
  { divergence: 'redaction-line-break-ends-value', case: 'auth-line-end', modes: MODES },
  { divergence: 'redaction-line-break-ends-value', case: 'auth-scheme-at-line-end', modes: MODES },
  { divergence: 'redaction-line-break-ends-value', case: 'env-empty-value-then-next-line', modes: ['default'] },
  // ... and in a secret-bearing file's content, which newer Hermes reads with its assignment passes.
  { divergence: 'redaction-line-break-ends-value', case: 'env-empty-value-then-next-line', modes: ['secret_file'], hermes: '>=0.22.2' },
  // Hermes' head/tail mask takes the closing quote in (`abcdef...123'`), the gateway's keeps it out (`abcdef...0123'`).
  { divergence: 'redaction-values-bounded-by-quotes', case: 'header-x-api-key', modes: ['default', 'code_file', 'terminal'] },
  // A mask already in the text is kept as it is; Hermes masks it again.
  { divergence: 'redaction-masks-in-input-kept', case: 'already-masked-input', modes: MODES },
  { divergence: 'redaction-sentinel-in-input-kept', case: 'yaml-value-sentinel', modes: ['default'] },
  // File content's sentinel names the key's vendor (`«redacted:ghp_…»`); Hermes writes `***`.
  { divergence: 'redaction-file-read-sentinel-everywhere', case: 'auth-token-scheme', modes: ['file_read', 'secret_file'] },
];

/** A divergence of the redaction surface by id, checked to be one LEAK_EXCUSED may cite for its pairs. */
function divergenceNamed(id: string): Divergence {
  const d = divergences().find((x) => x.surface === 'redaction' && x.id === id);
  if (d === undefined) throw new Error(`LEAK_EXCUSED cites ${id}, which is no redaction divergence`);
  if (checksOf(d).includes('hides-all')) throw new Error(`LEAK_EXCUSED cites ${id}, whose difference is accepted only where the gateway hides all`);
  for (const e of LEAK_EXCUSED.filter((x) => x.divergence === id)) {
    if (d.cases !== undefined && !d.cases.includes(e.case)) throw new Error(`LEAK_EXCUSED: ${id} does not list ${e.case}`);
    const outside = e.modes.filter((m) => !Object.keys(d.fields).some((f) => f === m || f === '*' || f === '.'));
    if (outside.length > 0) throw new Error(`LEAK_EXCUSED: ${id} does not name the fields ${outside.join(', ')}`);
  }
  return d;
}

// The issue's examples, and the secrets of every case: the gateway never shows a piece of a secret
// this Hermes masks, in any mode, whatever else differs. Each pin's run asks its own Hermes, so both
// versions are held to it.
const ISSUE_EXAMPLES: ReadonlyArray<{ text: string; command?: string }> = [
  { text: 'token glpat-LuPgqSyRXzqh here' },
  { text: "password = 'gldt-abcdefghijkl'" },
  { text: "password = 'gldt-abcdefghijkl'", command: 'cat .env' },
  { text: 'GITLAB_TOKEN=glpat-LuPgqSyRXzqh', command: 'grep TOKEN ~/.bashrc' },
  { text: 'pk-lf-1234abcd sk-sp-abc.def123456789xyz 0123456789abcdef0123456789abcdef.AbCdEfGhIjKlMnOp' },
  { text: "E       assert {'BRAVE_API_KEY': 'opaque-value-123'} == {}", command: 'pytest' },
];

test(`redaction: the gateway shows nothing Hermes ${hermes().version} hides, in any mode, over the issue's examples and every case`, async () => {
  const all = [
    ...ISSUE_EXAMPLES.map((e, i): RedactionCase => ({ id: `issue-example-${i}`, text: e.text, ...(e.command !== undefined ? { command: e.command } : {}) })),
    ...cases,
  ];
  const answers = await hermesModes(all);
  const version = hermes().version;
  const excused = LEAK_EXCUSED.filter((e) => appliesTo(divergenceNamed(e.divergence), version) && (e.hermes === undefined || satisfies(version, e.hermes)));
  const used = new Set<(typeof LEAK_EXCUSED)[number]>();
  const leaks: string[] = [];
  for (const c of all) {
    const h = answers.get(c.id) as Modes;
    const g = direct(c);
    for (const mode of MODES) {
      const leaked = leakedPieces(c.text, h[mode], g[mode]);
      if (leaked.length === 0) continue;
      const excuse = excused.find((e) => e.case === c.id && e.modes.includes(mode));
      if (excuse) used.add(excuse);
      else leaks.push(`${c.id} (${mode}): ${JSON.stringify(leaked)}\n  hermes:  ${JSON.stringify(h[mode])}\n  gateway: ${JSON.stringify(g[mode])}`);
    }
  }
  assert.deepEqual(leaks, [], leaks.join('\n'));
  // Every excused pair is one this Hermes differs on: an excuse no longer needed is dropped (or scoped).
  assert.deepEqual(excused.filter((e) => !used.has(e)).map((e) => `${e.case} (${e.modes.join(', ')})`), [], `excused in LEAK_EXCUSED, but Hermes ${version} hides nothing the gateway shows there`);
  // The check itself: an unmasked text shows what Hermes hid of a key both versions mask.
  const ghp = byId.get('github-ghp')!;
  assert.ok(!hidesAll(ghp.text, (answers.get(ghp.id) as Modes).default, ghp.text), 'the leak check finds the unmasked key');
});

// The listed divergences state what the gateway masks, not just that it differs: a truncated private
// key (no END line, which Hermes leaves in the clear) left unmasked, or masked but for its body, is
// reported, judged against the list as it is.
test('redaction: a truncated private key left in the clear, whole or in part, is reported', async () => {
  const entry = divergences().find((d) => d.id === 'redaction-private-key-blocks')!;
  const answers = await hermesModes(entry.cases!.map((id) => byId.get(id)!));
  const c = byId.get('pem-truncated')!;
  const h = answers.get(c.id) as Modes;
  const g = direct(c);
  assert.equal(new Surface('redaction').judge(c.id, g, h, 'direct').verdict, 'divergent');
  const bodyLeft = Object.fromEntries(MODES.map((m) => [m, c.text.replace(/^-----BEGIN [^\n]*-----/, '[REDACTED PRIVATE KEY]')]));
  assert.notDeepEqual(bodyLeft, h);
  assert.equal(new Surface('redaction').judge(c.id, bodyLeft, h, 'direct').verdict, 'different');
  // The other case the entry lists answered as the gateway does, this one as Hermes does.
  const inTheClear = new Surface('redaction', {}, [entry]);
  for (const id of entry.cases!) inTheClear.judge(id, id === c.id ? h : direct(byId.get(id)!), answers.get(id), 'direct');
  assert.deepEqual(
    inTheClear.problems().filter((p) => p.includes(entry.id)),
    [`redaction: ${entry.id} lists the case ${c.id}, which does not show it (direct: equal); remove it from the list`],
  );
});
