import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { stripAnsi } from '../../../shared/output-cap.js';
import type { GatewayConfig } from '../../platform/config.js';
import { approvalPolicy, type ApprovalPolicy, type CommandPattern, type PatternText } from './approval-policy.js';
import {
  collapseUnquotedWhitespace,
  commandStartVariant,
  deobfuscateWord,
  markRawCommandStarts,
  maskQuotedNewlines,
  maskQuotedProse,
  OverBudget,
  segmentWords,
  simpleCommandEnd,
  spend,
  type Budget,
} from './command-words.js';
import { denyRulesFor, type DenyRuleSource } from './deny-rules.js';
import { EXECUTION_FINDING_KEYS, executionFindings, MALFORMED_EXEC_KEY, programPayloads } from './execution-findings.js';
import { pythonStrip, globMatches, PYTHON_WHITESPACE } from './fnmatch.js';
import { grepSafeVariant } from './grep-variant.js';
import { LIFECYCLE_SPLICE_KEY, splicesGatewayLifecycle } from './lifecycle.js';
import { commandDeletesRuntime, hermesRuntimePaths, type ProtectedPath } from './runtime-floor.js';
import { basename, shellTokens } from './shell-tokens.js';

// The gateway's approval guard: Hermes' command guards (tools/approval.py in 0.19, the
// tools/approval_*.py modules later), the union of every supported Hermes: whatever any of them
// blocks or asks about, the gateway blocks or asks about too. The patterns are data in
// policy/dangerous-commands.json; what Hermes reads structurally (its parser limits, quoted grep -P
// patterns, options that make a program run code: bash -c, python -c, rg --pre, …, the runtime
// self-delete floor, the operator's approvals.deny rules, the spliced gateway-lifecycle check) is
// here and in the files beside it. A command is normalised like Hermes does it and matched as
// text, so it is a guard against accidents and prompt-injected one-liners, not a sandbox: a script
// file, an interpreter or an alias can always say the same thing differently.
//
//   - hardline: never runs through the gateway, whoever asks;
//   - deny: an operator's approvals.deny rule matches: never runs through the gateway;
//   - dangerous: Hermes would ask the user. Inside execute_code the whole script was the one
//     approval (the host's consent covers that one script, never a session-wide grant), so the
//     caller denies these there.
//
// This file judges; approval-policy.ts loads the patterns, command-words.ts and shell-tokens.ts
// read the command as the shell would, execution-findings.ts, grep-variant.ts, runtime-floor.ts,
// deny-rules.ts and lifecycle.ts are Hermes' structural checks.

export { approvalPolicy, loadApprovalPolicy } from './approval-policy.js';
export { MALFORMED_EXEC_KEY } from './execution-findings.js';

export type CommandVerdict =
  | { verdict: 'allow' }
  | { verdict: 'hardline' | 'dangerous'; key: string }
  /** An approvals.deny rule matches (`rule` as Hermes names it, `file` the config.yaml it is in). */
  | { verdict: 'deny'; rule: string; file: string }
  /** The approvals.deny rules cannot be read as rules: every command is refused until they can. */
  | { verdict: 'deny'; problem: string };

/** The configured homes whose absolute paths read as `~/.hermes/` and `~/` (the patterns' spelling). */
export type CommandHomes = Pick<GatewayConfig, 'hermesHome' | 'userHome'>;

/** What a command is judged with besides its text. */
export interface CommandContext extends CommandHomes {
  /** The operator's approvals.deny rules (none are applied without). */
  deny?: DenyRuleSource;
  /** The Hermes runtime paths no command may delete (runtime-floor.ts; none without). */
  runtime?: readonly ProtectedPath[];
  /** Variables a path's `$NAME` reads (the runtime floor). */
  env?: Readonly<Record<string, string>>;
  /** The directory the command runs in, when known (relative paths for the runtime floor). */
  cwd?: string;
}

/** The settings a gateway tool judges its commands with. */
export type GuardConfig = Pick<GatewayConfig, 'hermesHome' | 'userHome' | 'hermesManagedDir' | 'inheritedEnvironment' | 'hermesDotenv' | 'hermesAgentPython' | 'hermesToolsCommand' | 'hermesAgentSource'> & Partial<Pick<GatewayConfig, 'limits'>>;

/** The context a gateway tool judges a command in: its homes, the operator's deny rules, Hermes' runtime paths. */
export function commandContext(config: GuardConfig, cwd?: string): CommandContext {
  return {
    hermesHome: config.hermesHome,
    userHome: config.userHome,
    deny: denyRulesFor(config),
    runtime: hermesRuntimePaths(config),
    env: config.inheritedEnvironment,
    ...(cwd ? { cwd } : {}),
  };
}

/** Where a deny rule comes from, in refusals. */
export const DENY_SOURCE = 'approvals.deny';

/** What a refusal for an approvals.deny verdict says (after Hermes' _user_deny_block_result, without Hermes' own switches). */
export function denyMessage(verdict: Extract<CommandVerdict, { verdict: 'deny' }>): string {
  if ('problem' in verdict) {
    return `BLOCKED: ${verdict.problem}. Every command is refused until the operator fixes approvals.deny in Hermes' config.yaml; do not retry or rephrase it.`;
  }
  return `BLOCKED: this command matches the operator's deny rule '${verdict.rule}' (approvals.deny in Hermes' config.yaml, ${verdict.file}). It is refused before execution, whatever else is configured. Do not retry or rephrase it; the user has explicitly forbidden it.`;
}

/** The stable refusal (COMMAND_DENIED) for an approvals.deny verdict: the rule and its file, or the problem. */
export function denyError(verdict: Extract<CommandVerdict, { verdict: 'deny' }>): GatewayError {
  const details = 'problem' in verdict ? { source: DENY_SOURCE, problem: verdict.problem } : { source: DENY_SOURCE, deny_rule: verdict.rule, config_file: verdict.file };
  return new GatewayError(ErrorCode.COMMAND_DENIED, denyMessage(verdict), details);
}

/** Hermes' description for a command its parser refuses to judge (always blocked). */
export const PARSER_LIMIT_KEY = 'command parser limit exceeded';

/** How Hermes names a runtime self-delete (tools/approval.py _floor_block). */
export const runtimeDeleteKey = (what: string) => `recursive/any delete of ${what}`;

/**
 * The descriptions the gateway's checks outside the pattern file report (the runtime floor's as
 * its prefix), for the tests that compare them with each Hermes' own.
 */
export const STRUCTURAL_KEYS: readonly string[] = [PARSER_LIMIT_KEY, MALFORMED_EXEC_KEY, ...EXECUTION_FINDING_KEYS, LIFECYCLE_SPLICE_KEY, runtimeDeleteKey('')];

/** Hermes' parser limits: longer input, or this many separators, is refused unread. */
const MAX_COMMAND_CHARS = 128_000;
const MAX_SEPARATOR_FREE_CHARS = 4_096;
const MAX_SEGMENTS = 25_000;
/** What reading one more program text for the deny rules costs, per character, from the same budget. */
const DENY_SOURCE_COST = 8;
/** Tokenising work allowed per command (characters), so nested starts cannot make it quadratic. */
const PARSE_BUDGET_FACTOR = 64;
const PARSE_BUDGET_BASE = 1_048_576;

/**
 * Hermes' order: its parser limits, the hardline patterns (each over every variant of the command),
 * the runtime self-delete floor, the sudo -S guard, the operator's deny rules, the dangerous
 * patterns, how the command runs a program (`python -c`, `node <<EOF`, `sort --compress-program`:
 * Hermes' _execution_flag_findings), and the spliced gateway-lifecycle check. The variants are every
 * reading any supported Hermes makes: the command (quoted `grep -P` patterns blanked), each program
 * an option of it runs (`bash -c PAYLOAD`, `rg --pre PROGRAM`, …, recursively), each with its
 * command starts marked, the command with quoted newlines read as spaces, a Windows-path reading,
 * and the starts marked on the command as written. Quoted text is matched like any other text
 * (Hermes does the same): `echo "rm -rf /"` is dangerous; hardline rm/shutdown forms need a command
 * position, so it is not hardline.
 */
export function checkCommand(command: string, ctx: CommandContext, policy: ApprovalPolicy = approvalPolicy()): CommandVerdict {
  if (parserLimitExceeded(command)) return { verdict: 'hardline', key: PARSER_LIMIT_KEY };
  try {
    return judge(command, ctx, policy);
  } catch (e) {
    if (e instanceof OverBudget) return { verdict: 'hardline', key: PARSER_LIMIT_KEY };
    throw e;
  }
}

/** One reading of the command, with the texts each kind of pattern reads, made when first asked for. */
class Reading {
  private lowerText?: string;
  private flagsText?: string;
  private maskedText?: string;

  constructor(
    readonly text: string,
    /** Whether the hardline patterns read it too (else only the dangerous ones). */
    readonly hardline: boolean,
  ) {}

  view(kind: PatternText): string {
    switch (kind) {
      case 'lower':
        return (this.lowerText ??= this.text.toLowerCase());
      case 'flags':
        // Without a `-` there is no flag word to keep.
        return (this.flagsText ??= this.text.includes('-') ? lowerPreservingFlags(this.text) : this.view('lower'));
      case 'masked':
        return (this.maskedText ??= maskQuotedProse(this.view('lower')));
    }
  }
}

function judge(command: string, ctx: CommandContext, policy: ApprovalPolicy): CommandVerdict {
  const base = hermesNormalise(command, ctx);
  const budget: Budget = { left: PARSE_BUDGET_FACTOR * base.length + PARSE_BUDGET_BASE };
  const words = segmentWords(base, budget);
  const grep = grepSafeVariant(base, words, budget);
  if (grep === 'malformed') return { verdict: 'hardline', key: MALFORMED_EXEC_KEY };
  const normalised = finishNormalising(grep);
  if (!normalised) return { verdict: 'allow' };
  const readings: Reading[] = [];
  const add = (text: string, hardline = true) => {
    if (!text) return;
    const known = readings.find((r) => r.text === text);
    if (!known) readings.push(new Reading(text, hardline));
    else if (hardline && !known.hardline) readings[readings.indexOf(known)] = new Reading(text, true);
  };
  add(normalised);
  const findings = executionFindings(words, budget);
  const payloads = programPayloads(base, findings, budget);
  for (const payload of payloads) {
    const text = finishNormalising(payload);
    add(text);
    add(commandStartVariant(text));
  }
  add(commandStartVariant(normalised));
  // Later Hermes reads a newline inside quotes as data (_mask_quoted_newlines) before anything else.
  const masked = maskQuotedNewlines(command);
  if (masked !== command) {
    const maskedBase = hermesNormalise(masked, ctx);
    const maskedGrep = grepSafeVariant(maskedBase, segmentWords(maskedBase, budget), budget);
    const text = finishNormalising(maskedGrep === 'malformed' ? maskedBase : maskedGrep);
    add(text);
    add(commandStartVariant(text));
  }
  // A Windows path (`C:\Users\me\.ssh`) read with its backslashes as `/` (normalisation drops them as escapes).
  if (/[A-Za-z]:\\|\\\\/.test(command)) add(finishNormalising(hermesNormalise(maskQuotedNewlines(command.replace(/\\/g, '/')), ctx)));
  // The command starts marked on the command as written, where a `\"` is no quote (Hermes'
  // "faithful" variant): it differs from the readings above only where a backslash changes how
  // the quotes pair up.
  if (command.includes('\\')) add(finishNormalising(hermesNormalise(markRawCommandStarts(masked, ' \n'), ctx)));
  const whole = finishNormalising(base);
  // The command with its quoted grep patterns, which later Hermes' faithful variant keeps: read by
  // the dangerous patterns only (a hardline pattern needs a command position, never inside quotes).
  add(whole, false);

  const first = (patterns: readonly CommandPattern[], hardline: boolean): CommandPattern | undefined => {
    for (const reading of readings) {
      if (hardline && !reading.hardline) continue;
      for (const p of patterns) if (!p.commandOnly && p.re.test(reading.view(p.text))) return p;
    }
    return undefined;
  };
  const wholeReading = readings.find((r) => r.text === whole) ?? new Reading(whole, false);
  const onWhole = (patterns: readonly CommandPattern[]) => patterns.find((p) => p.commandOnly && p.re.test(wholeReading.view(p.text)));

  const hard = first(policy.hardline, true);
  if (hard) return { verdict: 'hardline', key: hard.key };
  if (ctx.runtime && ctx.runtime.length > 0) {
    const what = commandDeletesRuntime(command, ctx.runtime, { userHome: ctx.userHome, env: ctx.env ?? {}, ...(ctx.cwd ? { cwd: ctx.cwd } : {}) });
    if (what) return { verdict: 'hardline', key: runtimeDeleteKey(what) };
  }
  const sudo = onWhole(policy.hardline);
  if (sudo) return { verdict: 'hardline', key: sudo.key };
  if (ctx.deny) {
    const rules = ctx.deny.current();
    if ('problem' in rules) return { verdict: 'deny', problem: rules.problem };
    if (rules.rules.length > 0) {
      const candidates = denyCandidates(command, base, grep, payloads, readings, ctx, budget);
      for (const candidate of candidates) {
        for (const rule of rules.rules) if (rule.compiled.some((g) => globMatches(g, candidate))) return { verdict: 'deny', rule: rule.glob, file: rule.file };
      }
    }
  }
  const danger = first(policy.dangerous, false) ?? onWhole(policy.dangerous);
  if (danger) return { verdict: 'dangerous', key: danger.key };
  if (findings.length > 0) return { verdict: 'dangerous', key: findings[0]!.key };
  if (splicesGatewayLifecycle(command, budget)) return { verdict: 'dangerous', key: LIFECYCLE_SPLICE_KEY };
  return { verdict: 'allow' };
}

// ---------------------------------------------------------------------------------------------
// The operator's deny rules: what a glob is matched against
// ---------------------------------------------------------------------------------------------

/** shlex.quote: a word as the shell would need it written. */
const shellQuote = (w: string) => (w === '' ? "''" : /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`);

/** The payload of `env -S STRING` / `--split-string=STRING` with the words after it (Hermes' _env_split_payload), or null. */
function envSplitPayload(tokens: string[]): string | null {
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '--' || !token.startsWith('-')) return null;
    const eq = token.indexOf('=');
    const option = eq < 0 ? token : token.slice(0, eq);
    if (option === '--split-string' || token.startsWith('-S')) {
      const attached = option === '--split-string' ? eq >= 0 : token.length > 2;
      let payload: string;
      if (attached) payload = option === '--split-string' ? token.slice(eq + 1) : token.slice(2);
      else payload = tokens[++i] ?? '';
      const args = shellTokens(payload) ?? payload.split(/\s+/).filter(Boolean);
      return [...args, ...tokens.slice(i + 1)].map(shellQuote).join(' ');
    }
    if (eq < 0 && ['-a', '--argv0', '-C', '--chdir', '-u', '--unset'].includes(option)) i++;
  }
  return null;
}

/**
 * Every text a deny glob is matched against, as the union of what each supported Hermes matches:
 * the command's readings (0.19: its detection variants, whole), and (later Hermes,
 * _deny_command_variants) each command-position word with the rest of its simple command, the word
 * deobfuscated and as its basename, so `git push*` also matches `ls && git push`, `sudo git push`,
 * `/usr/bin/git push`, `env -S 'git push'` and `bash -c 'git push'`. Lowercased and stripped (Hermes
 * matches `candidate.lower().strip()` against `glob.lower()`).
 */
function denyCandidates(command: string, base: string, grep: string, payloads: string[], readings: Reading[], ctx: CommandHomes, budget: Budget): string[] {
  const out = new Set<string>();
  const put = (text: string) => {
    spend(budget, text.length);
    out.add(pythonStrip(text.toLowerCase()));
  };
  for (const text of [base, grep, ...payloads]) put(text);
  for (const reading of readings) put(reading.text);
  const pending = [command, base];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const source = pending.shift()!;
    if (seen.has(source)) continue;
    seen.add(source);
    // Each program text read again is paid for in full, so payloads nested in payloads
    // (`env -S 'env -S …'`) end at the parser limit instead of taking quadratic time.
    spend(budget, DENY_SOURCE_COST * source.length);
    const words = segmentWords(source, budget);
    for (const { segment, spans } of words) {
      for (const [start, end, raw] of spans) {
        spend(budget, segment.length - end);
        const executable = deobfuscateWord(raw).replace(/\\(.)/g, '$1');
        const tail = collapseUnquotedWhitespace(segment.slice(end, simpleCommandEnd(segment, end)).replace(/\s+$/, ''));
        for (const name of new Set([executable, basename(executable)])) {
          put(name + tail);
          put(hermesNormalise(name + tail, ctx));
        }
        if (basename(executable) === 'env') {
          const tokens = shellTokens(segment.slice(start, simpleCommandEnd(segment, start)));
          const payload = tokens ? envSplitPayload(tokens) : null;
          if (payload) pending.push(payload);
        }
      }
    }
    for (const finding of executionFindings(words, budget)) if (finding.payload) pending.push(finding.payload);
  }
  return [...out];
}

// ---------------------------------------------------------------------------------------------
// Normalisation (Hermes' _normalize_command_for_detection, then whitespace and case)
// ---------------------------------------------------------------------------------------------

/** The text every pattern sees (lowercased). Exported for tests. */
export function normaliseCommand(command: string, homes: CommandHomes): string {
  return finishNormalising(hermesNormalise(command, homes)).toLowerCase();
}

/** Hermes' _normalize_command_for_detection: case and whitespace kept (the structural checks read them). */
function hermesNormalise(command: string, homes: CommandHomes): string {
  let c = stripAnsi(command).replace(/\0/g, '').normalize('NFKC');
  // A line continuation joins its two lines: `rm -rf \<newline>/` runs `rm -rf /`.
  c = c.replace(/\\\r?\n/g, '');
  c = foldHomes(c, homes);
  // r\m → rm, r''m → rm, rm${IFS}-rf → rm -rf: spellings the shell reads as the plain word.
  c = c.replace(/\\([^\n])/g, '$1');
  c = c.replace(/''|""/g, '');
  return c.replace(/\$\{IFS\b[^}]*\}|\$IFS\b/g, ' ');
}

/** Whitespace as Python's patterns read `\s` (also \x1c-\x1f and \x85), newlines apart: each run becomes one space. */
const SPACE_RUN = new RegExp(`[${PYTHON_WHITESPACE.replace('\n', '')}]+`, 'g');
const EDGE = new RegExp(`^[${PYTHON_WHITESPACE}]+|[${PYTHON_WHITESPACE}]+$`, 'g');

/**
 * Then whitespace, for the patterns: a run of whitespace (as Python counts it, so `rm\x1f-rf`
 * reads as `rm -rf`) becomes one space; newlines (command separators) are kept, one per run. An
 * invisible character JavaScript also counts as whitespace (U+FEFF) is kept: a pattern looks for it.
 * Case is kept (each pattern reads the lowercased text or the one whose flags keep their case).
 */
function finishNormalising(c: string): string {
  return c.replace(SPACE_RUN, ' ').replace(/ ?\n[ \n]*/g, '\n').replace(EDGE, '');
}

/** Hermes' _lower_preserving_flags: every word lowercased except those starting with `-`. */
function lowerPreservingFlags(c: string): string {
  return c
    .split(/(\s+)/)
    .map((t) => (t.startsWith('-') ? t : t.toLowerCase()))
    .join('');
}

/**
 * Absolute Hermes-home and user-home prefixes read as ~/.hermes/ and ~/ (the patterns' spelling).
 * Both are the gateway's configured ones (config.hermesHome, config.userHome), so a HERMES_HOME
 * outside ~/.hermes is guarded like ~/.hermes.
 */
function foldHomes(c: string, homes: CommandHomes): string {
  c = foldPrefix(c, [homes.hermesHome], '~/.hermes');
  return foldPrefix(c, [homes.userHome], '~');
}

function foldPrefix(c: string, paths: string[], replacement: string): string {
  const candidates = [...new Set(paths.map((p) => p.replace(/\/+$/, '')))].sort((a, b) => b.length - a.length);
  for (const path of candidates) {
    // A home of fewer than two components (`/`, `/home`) would rewrite unrelated paths.
    if (path.split('/').filter(Boolean).length < 2 || !c.includes(path + '/')) continue;
    c = c.split(path + '/').join(replacement + '/');
  }
  return c;
}

function parserLimitExceeded(command: string): boolean {
  if (command.length > MAX_COMMAND_CHARS) return true;
  if (command.length > MAX_SEPARATOR_FREE_CHARS && !/[;&|\n]/.test(command)) return true;
  let separators = 0;
  for (const ch of command) if (ch === ';' || ch === '&' || ch === '|' || ch === '\n') if (++separators >= MAX_SEGMENTS) return true;
  return false;
}
