// The value policy the assignment passes of shared/redact.ts share (ENV/config in assignments.ts;
// JSON, Python repr and YAML fields in fields.ts): which key names hold a secret, and which of
// their values are masked, as 0.19 and newer Hermes each decide.

import { MASK, type Masker } from './mask.js';

// ---------------------------------------------------------------------------------------------
// Shared policy for the assignment passes (2 ENV/config, 3 JSON, 4 YAML)
// ---------------------------------------------------------------------------------------------

// Secret keywords inside a key name, as Hermes reads them: a name that CONTAINS one is a secret's
// name, whatever surrounds the keyword (`MAX_TOKENS`, `AUTHOR`, `tokenizer` included: Hermes masks
// their values, and the gateway masks at least what Hermes masks).
// - ENV (`_ENV_ASSIGN_RE`): upper-case names only, `API_KEY`/`APIKEY`, `AUTH` counts.
export const ENV_NAME_KEYWORD_RE = /API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/;
//   Newer Hermes adds bare `KEY`, `PASS` and `PW` (`SSH_KEY`, `DB_PASS`, `MYSQL_PW`), under its
//   value policy (newerHermesMasks), which turns down `KEYBOARD=us`.
export const NEWER_ENV_NAME_KEYWORD_RE = /KEY|PASS|PW/;
// - any case (newer Hermes `_ENV_ASSIGN_LOWER_RE`): a name that ends in `_` and a keyword
//   (`openai_key`, `db_pw`, `My_Pass`), never a bare `password=` or `token=` (prose, form bodies).
export const ANY_CASE_ENV_NAME_RE = /^[A-Za-z0-9_]+_(?:key|pass|pw|token|secret|password|passwd|credential|auth)$/i;
// What every such assignment holds: the gate of its pass.
export const ANY_CASE_ENV_GATE_RE = /_(?:key|pass|pw|token|secret|password|passwd|credential|auth)[ \t]*=/i;
// - config (`_CFG_DOTTED_RE`, `_CFG_ANCHORED_RE`): any case, `api_key`/`api.key`/`api-key`/`apikey`.
export const CFG_NAME_KEYWORD_RE = /api[ _.-]?key|token|secret|passwd|password|credential|auth/i;
// - YAML (`_YAML_ASSIGN_RE`): as config but without bare `auth` (`author:`; `Authorization:` is
//   pass 5's, which keeps the scheme). `auth_token` still counts through `token`.
export const YAML_NAME_KEYWORD_RE = /api[ _.-]?key|token|secret|passwd|password|credential/i;

// Values that name a variable rather than hold a secret: masking them corrupts code snippets shown
// in prose (`API_KEY = os.getenv("OPENAI_API_KEY")`, Hermes issue #2852). Hermes' one exception.
export const ENV_LOOKUP_VALUE_RE = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/;

// ---------------------------------------------------------------------------------------------
// Newer Hermes' value policy (agent/redact.py `_should_redact_assignment`, 0.22)
// ---------------------------------------------------------------------------------------------
//
// Newer Hermes masks fewer values than 0.19 for names holding a weak keyword (`MAX_TOKENS=100`,
// `tokenizer: cl100k_base`, `SSH_AUTH_SOCK=$HOME/…` stay) and more name shapes (`DB_PASS`,
// `openai_key`). The gateway masks what either version masks: 0.19's rule (a keyword anywhere in
// the name, any value) where 0.19 reads a name, and this rule for the names only newer Hermes
// reads (`KEY`, `PASS`, `PW` in upper-case names; any-case `_key`/`_pass`/`_pw`/`_token`… names).

// Hermes `_KEY_KEYWORD_RE`, `_STRONG_KEY_KEYWORD_RE`, `_PASSWORD_KEY_RE` (the class `[ _.\\-]`
// holds a backslash too, as Hermes' does).
const KEY_KEYWORD_RE = /(?:api|auth|access|refresh|session|secret)[ _.\\-]?(?:key|token)|token|secret|passwd|password|pass|pw|credential|auth|key/gi;
const STRONG_KEY_KEYWORD_RE = /(?:api|auth|access|refresh|session|id|bearer)[ _.\\-]?(?:key|token)|key[ _.\\-]?material|secret|passwd|password|pass|pw|credential|auth|bearer/gi;
const PASSWORD_KEY_RE = /passwd|password|pass|pw/gi;

const isAlpha = (c: string): boolean => /\p{L}/u.test(c);
const isUpper = (c: string): boolean => c !== c.toLowerCase() && c === c.toUpperCase();
const isLower = (c: string): boolean => c !== c.toUpperCase() && c === c.toLowerCase();

/** Hermes `_is_word_start`: an edge, a non-letter before, or a camelCase / acronym boundary. */
function isWordStart(s: string, i: number): boolean {
  if (i === 0) return true;
  const prev = s.charAt(i - 1);
  const cur = s.charAt(i);
  if (!isAlpha(prev) || (isUpper(cur) && isLower(prev))) return true;
  return isUpper(cur) && isUpper(prev) && i + 1 < s.length && isLower(s.charAt(i + 1));
}

/** Hermes `_is_word_end`: an edge, a non-letter after, or a camelCase boundary; one plural `s` is absorbed. */
function isWordEnd(s: string, j: number, allowPlural = true): boolean {
  if (j >= s.length) return true;
  const cur = s.charAt(j);
  if (!isAlpha(cur) || (isUpper(cur) && isLower(s.charAt(j - 1)))) return true;
  return allowPlural && (cur === 's' || cur === 'S') && isWordEnd(s, j + 1, false);
}

/** Hermes `_has_word_bounded_keyword`: some match of `re` in `key` starts and ends a word. */
function hasWordBoundedKeyword(key: string, re: RegExp): boolean {
  for (const m of key.matchAll(re)) if (isWordStart(key, m.index) && isWordEnd(key, m.index + m[0].length)) return true;
  return false;
}

/** Hermes `_looks_like_opaque_credential`: a value shaped like a credential rather than a word or a number. */
function looksLikeOpaqueCredential(value: string): boolean {
  if (value === MASK || value.startsWith('«redacted:')) return true;
  const length = Array.from(value).length;
  if (length >= 16 && /^[A-Fa-f0-9]+$/.test(value)) return true;
  if (length >= 20 && /^[A-Za-z0-9_./+=-]+$/.test(value)) return true;
  if (length < 12) return false;
  return [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(value)).length >= 2;
}

const isShellWordChar = (c: string): boolean => /^[\p{L}\p{N}_]$/u.test(c);

/** The end of a shell variable reference at `at` (`$NAME`, `${…}`), or -1 (Hermes `_SHELL_VAR_REF`). */
function shellVarEnd(value: string, at: number): number {
  if (value.charAt(at) !== '$') return -1;
  const first = value.charAt(at + 1);
  if (first === '{') {
    if (!/[A-Za-z_]/.test(value.charAt(at + 2))) return -1;
    const close = value.indexOf('}', at + 3);
    return close < 0 ? -1 : close + 1;
  }
  if (!/[A-Za-z_]/.test(first)) return -1;
  let i = at + 2;
  while (i < value.length && isShellWordChar(value.charAt(i))) i++;
  return i;
}

/**
 * Hermes `_PATH_OR_VAR_VALUE_RE`, read by hand: the whole value is a `$VAR`/`${…}`/`$(`/`~`/`/`-led
 * path of word characters, `./:-` and further variable references. (As a regex, a variable name
 * that a path character may also take backtracks quadratically on a long value.)
 */
function isPathOrVarValue(value: string): boolean {
  let i: number;
  if (value.charAt(0) === '$') {
    i = shellVarEnd(value, 0);
    if (i < 0) {
      if (value.charAt(1) !== '(') return false;
      i = 2;
    }
  } else if (value.charAt(0) === '~' || value.charAt(0) === '/') i = 1;
  else return false;
  while (i < value.length) {
    const c = value.charAt(i);
    if (isShellWordChar(c) || c === '.' || c === '/' || c === ':' || c === '-') i++;
    else if (c === '$') {
      i = shellVarEnd(value, i);
      if (i < 0) return false;
    } else return false;
  }
  return true;
}

/** Hermes `_OPAQUE_PATH_SEGMENT_RE`: 16+ characters, no dot, lower and upper case and a digit. */
function isOpaquePathSegment(segment: string): boolean {
  return Array.from(segment).length >= 16 && !segment.includes('.') && /[a-z]/.test(segment) && /[A-Z]/.test(segment) && /[0-9]/.test(segment);
}

/**
 * Hermes `_should_redact_assignment` (newer Hermes): whether `value`, assigned to `key`, is masked.
 * An env lookup or a mask is kept; with `checkKeyword` the key must hold a keyword at a word
 * boundary; a path or variable reference is kept unless the key is password-class or a path
 * segment looks opaque; then a strong key masks any value, another key an opaque-looking one.
 */
function newerHermesMasks(key: string, value: string, checkKeyword: boolean): boolean {
  if (ENV_LOOKUP_VALUE_RE.test(value)) return false;
  if (value === MASK || value.startsWith('«redacted')) return false;
  if (checkKeyword && !hasWordBoundedKeyword(key, KEY_KEYWORD_RE)) return false;
  if (isPathOrVarValue(value) && !hasWordBoundedKeyword(key, PASSWORD_KEY_RE)) {
    if (value.charAt(0) === '$' || !value.split('/').some(isOpaquePathSegment)) return false;
  }
  return hasWordBoundedKeyword(key, STRONG_KEY_KEYWORD_RE) || looksLikeOpaqueCredential(value);
}

/** Values no assignment pass masks, whichever version's policy applies. */
function keptByEveryPolicy(value: string, masker: Masker): boolean {
  if (value === '') return true;
  // A mask that was in the text before this redaction stays (see Masker.keeps).
  if (masker.keeps(value)) return true;
  // Gateway: a PEM block assigned to a variable is left whole for pass 8. Hermes masks its first
  // word (`-----BEGIN`), which hides the BEGIN marker from its private-key pass and leaves the key
  // body in the clear.
  if (/^["']?-----BEGIN/.test(value)) return true;
  return ENV_LOOKUP_VALUE_RE.test(value);
}

/** 0.19's policy: every value but those kept by every policy. */
export function shouldMaskValue(value: string, masker: Masker): boolean {
  return !keptByEveryPolicy(value, masker);
}

/** Newer Hermes' policy for `name`'s value (newerHermesMasks), within the gateway's exceptions. */
export function newerPolicy(name: string, masker: Masker): (value: string) => boolean {
  return (value) => !keptByEveryPolicy(value, masker) && newerHermesMasks(name, value, true);
}

/**
 * Mask a raw value that may be wrapped in matching quotes; the quotes are kept. `masks` decides
 * for the unquoted value (0.19's policy by default).
 */
export function maskMaybeQuoted(raw: string, masker: Masker, masks: (value: string) => boolean = (value) => shouldMaskValue(value, masker)): string {
  const q = raw.charAt(0);
  const quoted = raw.length >= 2 && (q === '"' || q === "'") && raw.endsWith(q);
  const inner = quoted ? raw.slice(1, -1) : raw;
  if (!masks(inner)) return raw;
  const masked = masker.value(inner);
  return quoted ? q + masked + q : masked;
}

// Syntax the ENV/config and YAML passes share.

// Where a quote inside an unquoted value ends it: before whitespace or the end of the text, with
// only closing punctuation between (`{"env": "API_KEY=x"}`, `f('TOKEN=x'),`). A quote
// followed by more of the value belongs to it (`PASSWORD=pa'ss`), as does an opening quote that is
// never closed (`API_KEY="abc…` to the end of the token), so neither leaves part of a secret out.
export const QUOTE_CLOSES = String.raw`[,;)}\]>]*(?:\s|$)`;

// Gateway: a rendered line-number gutter before a line-anchored key: `5|` from
// read_file, `6:` from `grep -n`, `7-` from grep's context lines, `   8<TAB>` from `cat -n`. Without
// it the numbered copy of a secret-bearing file leaks what its raw text masks. The gutter starts
// with digits, so the whitespace runs before and after it never meet (no quadratic retry).
export const LINE_NUMBER_GUTTER = String.raw`(?:[0-9]{1,12}(?:[|:-]|\t)[ \t]*)?`;
