import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { GatewayConfig } from '../../platform/config.js';
import { approvalPolicy, type ApprovalPolicy, type CommandPattern, type PatternText } from './approval-policy.js';
import { commandStartVariant, markRawCommandStarts, OverBudget, segmentWords, type Budget } from './command-words.js';
import { denyCandidates } from './deny-candidates.js';
import { denyRulesFor, type DenyRuleSource } from './deny-rules.js';
import { EXECUTION_FINDING_KEYS, executionFindings, MALFORMED_EXEC_KEY, programPayloads } from './execution-findings.js';
import { globMatches } from './fnmatch.js';
import { grepSafeVariant, LIFECYCLE_SPLICE_KEY, splicesGatewayLifecycle } from './structural.js';
import { finishNormalising, hermesNormalise, lowerPreservingFlags, maskQuotedNewlines, maskQuotedProse, parserLimitExceeded, type CommandHomes } from './normalise.js';
import { commandDeletesRuntime, hermesRuntimePaths, type ProtectedPath } from './runtime-floor.js';

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
// This file judges and is the folder's one entry; approval-policy.ts loads the patterns,
// normalise.ts, command-words.ts and shell-tokens.ts read the command as the shell would,
// execution-findings.ts, structural.ts (the grep-safe variant, the spliced gateway lifecycle),
// runtime-floor.ts and deny-rules.ts (with deny-candidates.ts) are Hermes' structural checks.

export { approvalPolicy } from './approval-policy.js';
export type { CommandHomes } from './normalise.js';

export type CommandVerdict =
  | { verdict: 'allow' }
  | { verdict: 'hardline' | 'dangerous'; key: string }
  /** An approvals.deny rule matches (`rule` as Hermes names it, `file` the config.yaml it is in). */
  | { verdict: 'deny'; rule: string; file: string }
  /** The approvals.deny rules cannot be read as rules: every command is refused until they can. */
  | { verdict: 'deny'; problem: string };

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

/** A tool's command judge, made once when the tool is made: the patterns, the operator's deny rules and Hermes' runtime paths found then. */
export interface CommandGuard {
  /** The verdict on `command` run in `cwd` (when known: relative paths for the runtime floor). */
  check(command: string, cwd?: string): CommandVerdict;
}

/**
 * The command guard of a tool configured with `config`. The patterns load here (a broken
 * policy/dangerous-commands.json fails the tool's construction, at startup), and so do the Hermes
 * runtime paths (the Hermes the gateway fronts is located once, at startup); the deny rules'
 * config.yaml files are still read again whenever they change.
 */
export function commandGuard(config: GuardConfig): CommandGuard {
  const policy = approvalPolicy();
  const ctx = commandContext(config);
  return { check: (command, cwd) => checkCommand(command, cwd ? { ...ctx, cwd } : ctx, policy) };
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
      const candidates = denyCandidates(command, base, grep, payloads, readings.map((r) => r.text), ctx, budget);
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

