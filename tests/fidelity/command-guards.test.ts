import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import { environmentSnapshot } from '../../supervisor/platform/config.js';
import { checkCommand, type CommandVerdict } from '../../supervisor/tools/command-guards/index.js';
import { OperatorDenyRules } from '../../supervisor/tools/command-guards/deny-rules.js';
import { protectedRuntimeOf } from '../../supervisor/tools/command-guards/runtime-floor.js';
import { sessionToken, viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { compareSurface, divergences, errorAsHermes, FIDELITY_DIR, oneByOne, oracleAnswers, runOracle, Surface, SurfaceFixture, type FidelityCase } from './harness.js';
import type { FidelityGateway } from './workspace.js';

// command_guards: the verdict of Hermes' own guards (tools/approval.py detect_hardline_command, the
// runtime self-delete floor where Hermes has it, _check_sudo_stdin_guard, _match_user_deny_rule and
// detect_dangerous_command, through drivers/command_guards.py) against the gateway's checkCommand
// (supervisor/tools/command-guards/index.ts). Compared: the verdict category (allow / dangerous = needs
// approval / deny = an approvals.deny rule refuses it / hardline = always blocked) and the key (the
// pattern's description, or the deny rule's glob). Both Hermes pins run it; the gateway follows
// every supported Hermes at once, so against each it is stricter where the other flags more
// (guards-stricter-than-hermes-0.19, -0.22), never less strict (the last test says so on its own).
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
  /** The approvals.deny group whose Hermes home (and managed scope) the case is judged in. */
  deny?: string;
}

type Entry = string | { id: string; command: string };
interface DenyGroup {
  /** approvals.deny of the group's config.yaml, as Hermes writes it (a list, or something malformed). */
  rules: unknown;
  /** approvals.deny of the managed scope's config.yaml. */
  managed?: string[];
  via?: Via[];
  cases: Entry[];
}
interface CaseFile {
  groups: Record<string, Entry[]>;
  sample: Record<string, { via: Via[]; commands: Entry[] }>;
  deny: Record<string, DenyGroup>;
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
  const add = (group: string, entry: Entry, via: Via[], deny?: string) => {
    const command = typeof entry === 'string' ? entry : entry.command;
    const slug = typeof entry === 'string' ? slugOf(entry) : entry.id;
    const id = `${group}/${slug}`;
    if (typeof command !== 'string' || command === '' || slug === '') throw new Error(`command_guards.yaml: an empty command or id in ${group}`);
    if (seen.has(id)) throw new Error(`command_guards.yaml: case id ${id} twice (give one of them an explicit id)`);
    seen.add(id);
    out.push({ id, command, via, ...(deny ? { deny } : {}) });
  };
  for (const [group, entries] of Object.entries(file.groups)) for (const e of entries) add(group, e, []);
  for (const [group, { via, commands }] of Object.entries(file.sample)) for (const e of commands) add(`sample-${group}`, e, via);
  for (const [group, { via = [], cases }] of Object.entries(file.deny)) for (const e of cases) add(`deny-${group}`, e, via, group);
  return out;
}

const caseFile = parse(readFileSync(join(FIDELITY_DIR, 'cases', 'command_guards.yaml'), 'utf8')) as CaseFile;

type GuardVerdict = { verdict: 'allow' } | { verdict: 'hardline' | 'dangerous' | 'deny'; key: string } | { verdict: 'deny'; problem: string };

const fx = new SurfaceFixture('guards');
const cases = loadGuardCases();
let hermesHome = '';
let userHome = '';
/** An empty managed scope (no config.yaml): what both sides read where a case names none. */
let noManagedScope = '';
let token = '';
let denyGateway: FidelityGateway | undefined;
let denyToken = '';
const hermesVerdicts = new Map<string, GuardVerdict>();
const gatewayVerdicts = new Map<string, GuardVerdict>();
/** Each deny group's Hermes home and managed scope. */
const denyHomes = new Map<string, { home: string; managed: string }>();
/** The environment both sides expand a rule's `${…}` from. */
const DENY_ENV = { GUARD_DENY_TOOL: 'kubectl' };

/** The case's command with `<home>`, `<hermes_home>`, `<hermes_venv>` and `<hermes_python>` spelled as both sides are given them. */
const commandOf = (c: GuardCase) =>
  c.command.split('<hermes_home>').join(hermesHome).split('<home>').join(userHome).split('<hermes_venv>').join(hermes().dir).split('<hermes_python>').join(hermes().python);

/** The gateway's verdict as the driver words Hermes': a deny rule is its key. */
function asHermes(v: CommandVerdict): GuardVerdict {
  if (v.verdict === 'deny') return 'problem' in v ? { verdict: 'deny', problem: v.problem } : { verdict: 'deny', key: v.rule };
  return v;
}

/** The terminal tool's answer as a verdict: COMMAND_BLOCKED is hardline, COMMAND_DENIED a deny rule; a command that ran is allowed. */
function terminalVerdict(answer: unknown): unknown {
  const a = errorAsHermes(answer) as Record<string, unknown>;
  if (a.code === 'COMMAND_BLOCKED' && typeof a.pattern_key === 'string') return { verdict: 'hardline', key: a.pattern_key };
  if (a.code === 'COMMAND_DENIED' && typeof a.deny_rule === 'string') return { verdict: 'deny', key: a.deny_rule };
  if (typeof a.exit_code === 'number' && a.exit_code !== -1 && a.error === null) return { verdict: 'allow' };
  return { unexpected: answer };
}

/** hermes_tools.terminal's answer as a verdict: status blocked names the pattern (and says hardline); a command that ran is allowed. */
function hermesToolsVerdict(answer: unknown): unknown {
  const a = answer as Record<string, unknown>;
  if (a.status === 'blocked' && typeof a.error === 'string') {
    const rule = /^Command denied: deny rule '(.*?)'\. execute_code scripts get no further approvals; /s.exec(a.error);
    if (rule) return { verdict: 'deny', key: rule[1] };
    const m = /^Command denied: (.*?)\. execute_code scripts get no further approvals; (.*)$/s.exec(a.error);
    if (m) return { verdict: /\(hardline\)/.test(m[2]!) ? 'hardline' : 'dangerous', key: m[1] };
  }
  if (typeof a.exit_code === 'number' && a.exit_code !== -1 && a.error === null) return { verdict: 'allow' };
  return { unexpected: answer };
}

/** The deny rules of `group` as the gateway reads them (its Hermes home's config.yaml and its managed scope's). */
const denySources = new Map<string, OperatorDenyRules>();
function contextOf(c: GuardCase) {
  const where = c.deny ? denyHomes.get(c.deny)! : { home: hermesHome, managed: noManagedScope };
  let deny = denySources.get(where.home);
  if (!deny) {
    deny = new OperatorDenyRules({ hermesHome: where.home, hermesManagedDir: where.managed, inheritedEnvironment: DENY_ENV });
    denySources.set(where.home, deny);
  }
  return { hermesHome: where.home, userHome, deny, runtime: protectedRuntimeOf(hermes().python), env: DENY_ENV };
}

compareSurface<GuardCase>({
  surface: 'command_guards',
  cases,
  fixture: fx,
  async setUp() {
    // One Hermes home for the driver and the commands alike: `<hermes_home>` spells it.
    hermesHome = fx.hermesHome('hermes');
    userHome = fx.dir('user');
    noManagedScope = fx.dir('no-managed-scope');
    // Each deny group's rules written by Hermes' own config code; a managed scope's by hand (Hermes has no writer for it).
    for (const [group, { rules, managed }] of Object.entries(caseFile.deny)) {
      const home = fx.hermesHome(`deny-${group}`, { config: { approvals: { deny: rules } } });
      let scope = noManagedScope;
      if (managed) {
        scope = fx.dir(`managed-${group}`);
        writeFileSync(join(scope, 'config.yaml'), stringify({ approvals: { deny: managed } }));
      }
      denyHomes.set(group, { home, managed: scope });
    }
    mkdirSync(join(fx.ws, 'run'));
    token = await sessionToken((await fx.gateway()).client);
    const sampled = Object.entries(caseFile.deny).find(([, g]) => (g.via ?? []).length > 0);
    if (sampled) {
      const where = denyHomes.get(sampled[0])!;
      denyGateway = await fx.gateway({ home: where.home, env: { HERMES_MANAGED_DIR: where.managed }, inherited: { ...environmentSnapshot(process.env), ...DENY_ENV } });
      denyToken = await sessionToken(denyGateway.client);
    }
  },
  async hermes(list) {
    const answers = new Map<string, unknown>();
    const groups = new Map<string | undefined, GuardCase[]>();
    for (const c of list) groups.set(c.deny, [...(groups.get(c.deny) ?? []), c]);
    for (const [group, members] of groups) {
      const where = group ? denyHomes.get(group)! : { home: hermesHome, managed: noManagedScope };
      const input = { cases: members.map((c) => ({ id: c.id, command: commandOf(c) })) };
      for (const [id, a] of oracleAnswers(await runOracle('command_guards.py', input, where.home, { HOME: userHome, HERMES_MANAGED_DIR: where.managed, ...DENY_ENV }))) answers.set(id, a);
    }
    for (const [id, a] of answers) hermesVerdicts.set(id, a as GuardVerdict);
    return answers;
  },
  gateway: {
    function: (list) =>
      oneByOne(list, async (c) => {
        const verdict = asHermes(checkCommand(commandOf(c), contextOf(c)));
        gatewayVerdicts.set(c.id, verdict);
        return verdict;
      }),
    terminal: (list) =>
      oneByOne(
        list.filter((c) => c.via.includes('terminal')),
        async (c) => {
          const [gw, tok] = c.deny ? [denyGateway!, denyToken] : [fx.gw, token];
          return terminalVerdict((await viaBridge(gw.client, 'terminal', { command: c.command, timeout: 10, workdir: join(fx.ws, 'run') }, tok)).data);
        },
      ),
    async hermes_tools(list) {
      const out = new Map<string, unknown>();
      for (const [gw, sampled] of [
        [fx.gw, list.filter((c) => c.via.includes('hermes_tools') && !c.deny)],
        [denyGateway, list.filter((c) => c.via.includes('hermes_tools') && c.deny)],
      ] as const) {
        if (!gw || sampled.length === 0) continue;
        const results = await gw.hermesTools(sampled.map((c) => ['terminal', { command: c.command, timeout: 10 }]));
        sampled.forEach((c, i) => out.set(c.id, hermesToolsVerdict(results[i])));
      }
      return out;
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

// Safety does not depend on the version: whatever this Hermes blocks, denies or asks about, the
// gateway blocks, denies or asks about at least as strictly (allow < dangerous < deny < hardline),
// case by case, independently of the listed divergences. The rules later Hermes added are among
// the cases (new-rules, changed-rules, structure-newest), so against the newest pin this covers them.
const RANK: Readonly<Record<string, number>> = { allow: 0, dangerous: 1, deny: 2, hardline: 3 };
test(`command_guards: the gateway is never less strict than Hermes ${hermes().version}`, () => {
  const weaker = cases.filter((c) => RANK[gatewayVerdicts.get(c.id)?.verdict ?? 'allow']! < (RANK[hermesVerdicts.get(c.id)?.verdict ?? ''] ?? 99));
  assert.deepEqual(weaker.map((c) => `${c.id}: gateway ${JSON.stringify(gatewayVerdicts.get(c.id))}, Hermes ${JSON.stringify(hermesVerdicts.get(c.id))}`), []);
  assert.equal(gatewayVerdicts.size, cases.length, 'every case was judged by the gateway');
  for (const group of ['new-rules', 'changed-rules', 'structure-newest', 'deny-rules']) {
    const flagged = cases.filter((c) => c.id.startsWith(`${group}/`) && gatewayVerdicts.get(c.id)?.verdict !== 'allow');
    assert.ok(flagged.length >= 10, `${group}: only ${flagged.length} cases the gateway flags`);
  }
});

// The listed divergences state the gateway's own verdict, not just that it differs: a stricter
// verdict the list names that becomes Hermes' own (`sudo -u root shutdown now` allowed) or another
// one (asked about instead of blocked) is reported, judged against the list as it is.
test('command_guards: a listed stricter verdict that becomes Hermes\' own, or another one, is reported', () => {
  const id = 'wrapper-read-through/sudo-u-root-shutdown-now';
  const h = hermesVerdicts.get(id);
  const g = gatewayVerdicts.get(id);
  assert.deepEqual(h, { verdict: 'allow' }, `Hermes ${hermes().version} allows ${id}`);
  assert.deepEqual(g, { verdict: 'hardline', key: 'system shutdown/reboot' });
  assert.equal(new Surface('command_guards').judge(id, g, h, 'function').verdict, 'divergent');
  assert.equal(new Surface('command_guards').judge(id, { verdict: 'dangerous', key: 'system shutdown/reboot' }, h, 'function').verdict, 'different');
  // Every other case the entry lists answered as the gateway does, this one as Hermes does.
  const entry = divergences().find((d) => d.id === 'wrapper-words-read-through')!;
  const asHermesDoes = new Surface('command_guards', {}, [entry]);
  for (const other of entry.cases!) asHermesDoes.judge(other, other === id ? h : gatewayVerdicts.get(other), hermesVerdicts.get(other), 'function');
  assert.deepEqual(
    asHermesDoes.problems().filter((p) => p.includes(entry.id)),
    [`command_guards: wrapper-words-read-through lists the case ${id}, which does not show it (function: equal); remove it from the list`],
  );
});
