import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';

// The approval guard's patterns: HARDLINE_PATTERNS and DANGEROUS_PATTERNS of Hermes'
// tools/approval.py as data in policy/dangerous-commands.json, read, validated and compiled once.

export interface CommandPattern {
  key: string;
  re: RegExp;
  /** Matched against the normalised command only, after the list's other patterns. */
  commandOnly: boolean;
}

export interface ApprovalPolicy {
  readonly hardline: readonly CommandPattern[];
  readonly dangerous: readonly CommandPattern[];
}

const Entry = v.strictObject({
  key: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  pattern: v.pipe(v.string(), v.minLength(1)),
  // g and y would make RegExp.test stateful (lastIndex); every flag at most once.
  flags: v.optional(v.pipe(v.string(), v.regex(/^(?!.*(.).*\1)[imsu]*$/, 'flags may only combine i, m, s and u')), 'i'),
  // "command": matched after the list's other patterns, against the normalised command only
  // (not its command-start or payload variants), as Hermes' _check_sudo_stdin_guard is.
  only: v.optional(v.literal('command')),
});
const PolicyFile = v.strictObject({
  $comment: v.optional(v.string()),
  hardline: v.pipe(v.array(Entry), v.minLength(1)),
  dangerous: v.pipe(v.array(Entry), v.minLength(1)),
});

const DEFAULT_POLICY_FILE = join(packageRoot(), 'policy', 'dangerous-commands.json');

/** Reads, validates and compiles a pattern file; any problem is an Error naming the file and entry. */
export function loadApprovalPolicy(file = DEFAULT_POLICY_FILE): ApprovalPolicy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`approval guard: cannot read ${file}: ${(e as Error).message}`);
  }
  const parsed = v.safeParse(PolicyFile, raw);
  if (!parsed.success) {
    throw new Error(`approval guard: ${file} is invalid: ` + parsed.issues.map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`).join('; '));
  }
  const compile = (list: 'hardline' | 'dangerous') =>
    parsed.output[list].map((entry, i): CommandPattern => {
      const where = `${file}: ${list}[${i}] (${JSON.stringify(entry.key)})`;
      let re: RegExp;
      try {
        re = new RegExp(entry.pattern, entry.flags);
      } catch (e) {
        throw new Error(`approval guard: ${where}: invalid regular expression: ${(e as Error).message}`);
      }
      // A pattern that matches the empty command would flag every command.
      if (re.test('')) throw new Error(`approval guard: ${where}: the pattern matches the empty command`);
      return { key: entry.key, re, commandOnly: entry.only === 'command' };
    });
  return Object.freeze({ hardline: Object.freeze(compile('hardline')), dangerous: Object.freeze(compile('dangerous')) });
}

let cached: ApprovalPolicy | undefined;
/** The gateway's policy, loaded once. Callers touch it at startup so a bad file fails early. */
export function approvalPolicy(): ApprovalPolicy {
  cached ??= loadApprovalPolicy();
  return cached;
}
