import { stripAnsi } from '../../../shared/output-cap.js';
import type { GatewayConfig } from '../../platform/config.js';
import { approvalPolicy, type ApprovalPolicy } from './approval-policy.js';
import { commandStartVariant, OverBudget, segmentWords, type Budget } from './command-words.js';
import { executionFindings, MALFORMED_EXEC_KEY, programPayloads } from './execution-findings.js';
import { grepSafeVariant } from './grep-variant.js';

// The gateway's approval guard: Hermes' dangerous-command detection (tools/approval.py), with the
// patterns as data in policy/dangerous-commands.json and what Hermes reads structurally (its
// parser limits, quoted grep -P patterns, options that make a program run code: bash -c,
// python -c, rg --pre, …) here. A command is normalised like Hermes does it and matched as text,
// so it is a guard against accidents and prompt-injected one-liners, not a sandbox: a script
// file, an interpreter or an alias can always say the same thing differently.
//
//   - hardline: never runs through the gateway, whoever asks;
//   - dangerous: Hermes would ask the user. Inside execute_code the whole script was the one
//     approval (the host's consent covers that one script, never a session-wide grant), so the
//     caller denies these there.
//
// This file judges; approval-policy.ts loads the patterns, command-words.ts and shell-tokens.ts
// read the command as the shell would, execution-findings.ts and grep-variant.ts are Hermes'
// structural checks.

export { approvalPolicy, loadApprovalPolicy } from './approval-policy.js';
export { MALFORMED_EXEC_KEY } from './execution-findings.js';

type CommandVerdict = { verdict: 'allow' } | { verdict: 'hardline' | 'dangerous'; key: string };

/** The configured homes whose absolute paths read as `~/.hermes/` and `~/` (the patterns' spelling). */
export type CommandHomes = Pick<GatewayConfig, 'hermesHome' | 'userHome'>;

/** Hermes' description for a command its parser refuses to judge (always blocked). */
export const PARSER_LIMIT_KEY = 'command parser limit exceeded';

/** Hermes' parser limits: longer input, or this many separators, is refused unread. */
const MAX_COMMAND_CHARS = 128_000;
const MAX_SEPARATOR_FREE_CHARS = 4_096;
const MAX_SEGMENTS = 25_000;
/** Tokenising work allowed per command (characters), so nested starts cannot make it quadratic. */
const PARSE_BUDGET_FACTOR = 64;
const PARSE_BUDGET_BASE = 1_048_576;

/**
 * Hardline before dangerous, each in file order over the command variants (Hermes' order):
 * the command (quoted `grep -P` patterns blanked), each program an option of it runs (`bash -c
 * PAYLOAD`, `rg --pre PROGRAM`, …, recursively) and each of those with its command starts marked.
 * A dangerous verdict with no pattern match still comes from how the command runs a program
 * (`python -c`, `node <<EOF`, `sort --compress-program`: Hermes' _execution_flag_findings).
 * Quoted text is matched like any other text (Hermes does the same): `echo "rm -rf /"` is
 * dangerous; hardline rm/shutdown forms need a command position, so it is not hardline.
 */
export function checkCommand(command: string, homes: CommandHomes, policy: ApprovalPolicy = approvalPolicy()): CommandVerdict {
  if (parserLimitExceeded(command)) return { verdict: 'hardline', key: PARSER_LIMIT_KEY };
  try {
    return judge(hermesNormalise(command, homes), policy);
  } catch (e) {
    if (e instanceof OverBudget) return { verdict: 'hardline', key: PARSER_LIMIT_KEY };
    throw e;
  }
}

function judge(base: string, policy: ApprovalPolicy): CommandVerdict {
  const budget: Budget = { left: PARSE_BUDGET_FACTOR * base.length + PARSE_BUDGET_BASE };
  const words = segmentWords(base, budget);
  const grep = grepSafeVariant(base, words, budget);
  if (grep === 'malformed') return { verdict: 'hardline', key: MALFORMED_EXEC_KEY };
  const normalised = finishNormalising(grep);
  if (!normalised) return { verdict: 'allow' };
  const variants = [normalised];
  const add = (text: string) => {
    if (text && !variants.includes(text)) variants.push(text);
  };
  const findings = executionFindings(words, budget);
  for (const payload of programPayloads(base, findings, budget)) {
    const text = finishNormalising(payload);
    add(text);
    add(commandStartVariant(text));
  }
  add(commandStartVariant(normalised));
  const whole = finishNormalising(base);
  for (const verdict of ['hardline', 'dangerous'] as const) {
    const patterns = policy[verdict];
    for (const text of variants) {
      for (const { key, re, commandOnly } of patterns) if (!commandOnly && re.test(text)) return { verdict, key };
    }
    for (const { key, re, commandOnly } of patterns) if (commandOnly && re.test(whole)) return { verdict, key };
  }
  if (findings.length > 0) return { verdict: 'dangerous', key: findings[0]!.key };
  return { verdict: 'allow' };
}

// ---------------------------------------------------------------------------------------------
// Normalisation (Hermes' _normalize_command_for_detection, then whitespace and case)
// ---------------------------------------------------------------------------------------------

/** The text every pattern sees. Exported for tests. */
export function normaliseCommand(command: string, homes: CommandHomes): string {
  return finishNormalising(hermesNormalise(command, homes));
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

/** Then whitespace and case, for the patterns. */
function finishNormalising(c: string): string {
  // Whitespace runs become one space; newlines (command separators) are kept, one per run.
  c = c.replace(/[^\S\n]+/g, ' ').replace(/ ?\n[ \n]*/g, '\n').trim();
  return c.toLowerCase();
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
