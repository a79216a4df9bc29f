import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { checkCommand } from '../../supervisor/tools/guards/approval.js';
import { sessionToken, viaBridge } from '../helpers/gateway.js';
import { compareSurface, errorAsHermes, FIDELITY_DIR, oneByOne, oracleAnswers, runOracle, SurfaceFixture, type FidelityCase } from './harness.js';

// command_guards: the verdict of Hermes' own guards (tools/approval.py detect_hardline_command,
// _check_sudo_stdin_guard and detect_dangerous_command, through drivers/command_guards.py) against
// the gateway's checkCommand (supervisor/tools/guards/approval.ts). Compared: the verdict category
// (allow / dangerous = needs approval / hardline = always blocked) and the pattern key.
//
// Every case is judged through checkCommand itself (a pure function, `function`). The sample
// groups also go to a running gateway, to show the same verdict reaches a client:
// - `terminal` (over MCP): a hardline command answers COMMAND_BLOCKED with its pattern_key, an
//   allowed one runs (dangerous ones run there too, the host's confirmation being the approval, so
//   only allowed and hardline commands are sampled this way);
// - `hermes_tools` (hermes_tools.terminal inside execute_code): hardline and dangerous commands
//   answer status "blocked" naming the pattern, an allowed one runs.
// Every sampled command is harmless if it runs.

type Via = 'terminal' | 'hermes_tools';

interface GuardCase extends FidelityCase {
  command: string;
  via: Via[];
}

type Entry = string | { id: string; command: string };
interface CaseFile {
  groups: Record<string, Entry[]>;
  sample: Record<string, { via: Via[]; commands: Entry[] }>;
}

const PUNCTUATION: Record<string, string> = { '/': 'slash', '~': 'tilde', '*': 'star', $: 'dollar', '(': 'lp', ')': 'rp', '{': 'lb', '}': 'rb', '`': 'bt', '"': 'dq', "'": 'sq', '\\': 'bs', '|': 'pipe', '&': 'amp', ';': 'semi', '>': 'gt', '<': 'lt', '\n': 'nl', '.': 'dot', ':': 'colon', '=': 'eq', '+': 'plus', '%': 'pct' };

/** A case id from its command: lowercased letters and digits, each punctuation mark named, `-` between. */
function slugOf(command: string): string {
  const words = command.toLowerCase().match(/[a-z0-9]+|[^a-z0-9]/g) ?? [];
  return words.map((w) => (/^[a-z0-9]/.test(w) ? w : (PUNCTUATION[w] ?? ''))).filter(Boolean).join('-');
}

/** The cases of cases/command_guards.yaml: `<group>/<slug of the command>` or `<group>/<id>`. */
function loadGuardCases(): GuardCase[] {
  const file = parse(readFileSync(join(FIDELITY_DIR, 'cases', 'command_guards.yaml'), 'utf8')) as CaseFile;
  const out: GuardCase[] = [];
  const seen = new Set<string>();
  const add = (group: string, entry: Entry, via: Via[]) => {
    const command = typeof entry === 'string' ? entry : entry.command;
    const slug = typeof entry === 'string' ? slugOf(entry) : entry.id;
    const id = `${group}/${slug}`;
    if (typeof command !== 'string' || command === '' || slug === '') throw new Error(`command_guards.yaml: an empty command or id in ${group}`);
    if (seen.has(id)) throw new Error(`command_guards.yaml: case id ${id} twice (give one of them an explicit id)`);
    seen.add(id);
    out.push({ id, command, via });
  };
  for (const [group, entries] of Object.entries(file.groups)) for (const e of entries) add(group, e, []);
  for (const [group, { via, commands }] of Object.entries(file.sample)) for (const e of commands) add(`sample-${group}`, e, via);
  return out;
}

type GuardVerdict = { verdict: 'allow' } | { verdict: 'hardline' | 'dangerous'; key: string };

const fx = new SurfaceFixture('guards');
const cases = loadGuardCases();
let hermesHome = '';
let userHome = '';
let token = '';
const hermesVerdicts = new Map<string, GuardVerdict>();

/** The case's command with `<home>` and `<hermes_home>` spelled as the absolute homes both sides are given. */
const commandOf = (c: GuardCase) => c.command.split('<hermes_home>').join(hermesHome).split('<home>').join(userHome);

/** The terminal tool's answer as a verdict: COMMAND_BLOCKED is hardline; a command that ran is allowed. */
function terminalVerdict(answer: unknown): unknown {
  const a = errorAsHermes(answer) as Record<string, unknown>;
  if (a.code === 'COMMAND_BLOCKED' && typeof a.pattern_key === 'string') return { verdict: 'hardline', key: a.pattern_key };
  if (typeof a.exit_code === 'number' && a.exit_code !== -1 && a.error === null) return { verdict: 'allow' };
  return { unexpected: answer };
}

/** hermes_tools.terminal's answer as a verdict: status blocked names the pattern (and says hardline); a command that ran is allowed. */
function hermesToolsVerdict(answer: unknown): unknown {
  const a = answer as Record<string, unknown>;
  if (a.status === 'blocked' && typeof a.error === 'string') {
    const m = /^Command denied: (.*?)\. execute_code scripts get no further approvals; (.*)$/s.exec(a.error);
    if (m) return { verdict: /\(hardline\)/.test(m[2]!) ? 'hardline' : 'dangerous', key: m[1] };
  }
  if (typeof a.exit_code === 'number' && a.exit_code !== -1 && a.error === null) return { verdict: 'allow' };
  return { unexpected: answer };
}

compareSurface<GuardCase>({
  surface: 'command_guards',
  cases,
  fixture: fx,
  async setUp() {
    // One Hermes home for the driver and the commands alike: `<hermes_home>` spells it.
    hermesHome = fx.hermesHome('hermes');
    userHome = fx.dir('user');
    mkdirSync(join(fx.ws, 'run'));
    token = await sessionToken((await fx.gateway()).client);
  },
  async hermes(list) {
    const answers = oracleAnswers(await runOracle('command_guards.py', { cases: list.map((c) => ({ id: c.id, command: commandOf(c) })) }, hermesHome, { HOME: userHome }));
    for (const [id, a] of answers) hermesVerdicts.set(id, a as GuardVerdict);
    return answers;
  },
  gateway: {
    function: (list) => oneByOne(list, async (c) => checkCommand(commandOf(c), { hermesHome, userHome })),
    terminal: (list) =>
      oneByOne(
        list.filter((c) => c.via.includes('terminal')),
        async (c) => terminalVerdict((await viaBridge(fx.gw.client, 'terminal', { command: c.command, timeout: 10, workdir: join(fx.ws, 'run') }, token)).data),
      ),
    async hermes_tools(list) {
      const sampled = list.filter((c) => c.via.includes('hermes_tools'));
      const results = await fx.gw.hermesTools(sampled.map((c) => ['terminal', { command: c.command, timeout: 10 }]));
      return new Map(sampled.map((c, i) => [c.id, hermesToolsVerdict(results[i])]));
    },
  },
});

// The corpus has to exercise every verdict: enough cases Hermes allows, asks about and blocks, and
// a sample of each that reached a running gateway.
test('command_guards: every verdict category is well represented, over MCP too', () => {
  const count = (v: string, sampled = false) => cases.filter((c) => hermesVerdicts.get(c.id)?.verdict === v && (!sampled || c.via.length > 0)).length;
  for (const v of ['allow', 'dangerous', 'hardline']) {
    assert.ok(count(v) >= 80, `only ${count(v)} cases Hermes judges ${v}`);
    assert.ok(count(v, true) >= 6, `only ${count(v, true)} sampled cases Hermes judges ${v}`);
  }
  assert.ok(cases.filter((c) => c.via.length > 0).length >= 20);
});
