// Passes 2-4 of shared/redact.ts (ENV/config, JSON fields, YAML) and the value policy they share.

import { ALREADY_MASKED_RE, MASK, OUTPUT_MASKER, type Masker } from './mask.js';

// ---------------------------------------------------------------------------------------------
// Shared policy for the assignment passes (2 ENV/config, 3 JSON, 4 YAML)
// ---------------------------------------------------------------------------------------------

// Secret keywords inside a key name, as Hermes reads them: a name that CONTAINS one is a secret's
// name, whatever surrounds the keyword (`MAX_TOKENS`, `AUTHOR`, `tokenizer` included: Hermes masks
// their values, and the gateway masks at least what Hermes masks).
// - ENV (`_ENV_ASSIGN_RE`): upper-case names only, `API_KEY`/`APIKEY`, `AUTH` counts.
const ENV_NAME_KEYWORD_RE = /API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/;
//   Newer Hermes adds bare `KEY`, `PASS` and `PW` (`SSH_KEY`, `DB_PASS`, `MYSQL_PW`), under its
//   value policy (newerHermesMasks), which turns down `KEYBOARD=us`.
const NEWER_ENV_NAME_KEYWORD_RE = /KEY|PASS|PW/;
// - any case (newer Hermes `_ENV_ASSIGN_LOWER_RE`): a name that ends in `_` and a keyword
//   (`openai_key`, `db_pw`, `My_Pass`), never a bare `password=` or `token=` (prose, form bodies).
const ANY_CASE_ENV_NAME_RE = /^[A-Za-z0-9_]+_(?:key|pass|pw|token|secret|password|passwd|credential|auth)$/i;
// What every such assignment holds: the gate of its pass.
const ANY_CASE_ENV_GATE_RE = /_(?:key|pass|pw|token|secret|password|passwd|credential|auth)[ \t]*=/i;
// - config (`_CFG_DOTTED_RE`, `_CFG_ANCHORED_RE`): any case, `api_key`/`api.key`/`api-key`/`apikey`.
const CFG_NAME_KEYWORD_RE = /api[ _.-]?key|token|secret|passwd|password|credential|auth/i;
// - YAML (`_YAML_ASSIGN_RE`): as config but without bare `auth` (`author:`; `Authorization:` is
//   pass 5's, which keeps the scheme). `auth_token` still counts through `token`.
const YAML_NAME_KEYWORD_RE = /api[ _.-]?key|token|secret|passwd|password|credential/i;

// Values that name a variable rather than hold a secret: masking them corrupts code snippets shown
// in prose (`API_KEY = os.getenv("OPENAI_API_KEY")`, Hermes issue #2852). Hermes' one exception.
const ENV_LOOKUP_VALUE_RE = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/;

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
export function newerHermesMasks(key: string, value: string, checkKeyword: boolean): boolean {
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
function shouldMaskValue(value: string, masker: Masker): boolean {
  return !keptByEveryPolicy(value, masker);
}

/** Newer Hermes' policy for `name`'s value (newerHermesMasks), within the gateway's exceptions. */
function newerPolicy(name: string, masker: Masker): (value: string) => boolean {
  return (value) => !keptByEveryPolicy(value, masker) && newerHermesMasks(name, value, true);
}

/**
 * Mask a raw value that may be wrapped in matching quotes; the quotes are kept. `masks` decides
 * for the unquoted value (0.19's policy by default).
 */
function maskMaybeQuoted(raw: string, masker: Masker, masks: (value: string) => boolean = (value) => shouldMaskValue(value, masker)): string {
  const q = raw.charAt(0);
  const quoted = raw.length >= 2 && (q === '"' || q === "'") && raw.endsWith(q);
  const inner = quoted ? raw.slice(1, -1) : raw;
  if (!masks(inner)) return raw;
  const masked = masker.value(inner);
  return quoted ? q + masked + q : masked;
}

// ---------------------------------------------------------------------------------------------
// Pass 2: ENV / config assignments
// ---------------------------------------------------------------------------------------------

// Where a quote inside an unquoted value ends it: before whitespace or the end of the text, with
// only closing punctuation between (`{"env": "API_KEY=x"}`, `f('TOKEN=x'),`). A quote
// followed by more of the value belongs to it (`PASSWORD=pa'ss`), as does an opening quote that is
// never closed (`API_KEY="abc…` to the end of the token), so neither leaves part of a secret out.
export const QUOTE_CLOSES = String.raw`[,;)}\]>]*(?:\s|$)`;

// Hermes `_ENV_ASSIGN_RE`; a masked assignment is written back as `NAME=value`, without the spaces
// around `=`, as Hermes writes it.
// Gateway: a quoted value may contain spaces but not a line break, and an unquoted one runs to
// whitespace or a closing quote (QUOTE_CLOSES). Stopping there keeps the closing quote of an enclosing string
// (`{"env": "API_KEY=x"}`) out of the mask, so redaction never breaks the syntax around a value.
// The value never starts on the next line (Hermes' `\s*` crosses a line break, so `API_KEY=` on a
// line of its own masks the next line whole and joins the two), and `=(?!=)` keeps `TOKEN == x`
// comparisons out (Hermes masks the second `=`).
// The pattern finds `NAME=`; the value (ENV_VALUE_RE) is read only after a name that holds a
// keyword, so a match without one consumes just `NAME=` and a secret-named assignment right after
// it (`x=API_KEY=…`, `4096=TOKEN=…`) is still found, while a long `A=B=C…` run stays linear.
const ENV_UPPER_RE = /(?<![A-Z0-9_])([A-Z0-9_]+)([ \t]*=(?!=)[ \t]*)/g;

const ENV_VALUE_RE = new RegExp(String.raw`"[^"\n]*"|'[^'\n]*'|["']?(?:[^\s"']|["'](?!${QUOTE_CLOSES}))+`, 'y');
// Lowercase/dotted config values also stop at `&`, so a form body (`password=x&user=y`) is masked
// pair by pair (pass 12) instead of being swallowed whole. No spaces around `=`, as in Hermes:
// `self.password = password` is code, `spring.datasource.password=x` is config.
const CFG_VALUE = String.raw`("[^"\n]*"|'[^'\n]*'|["']?(?:[^\s&"']|["'](?![&]|${QUOTE_CLOSES}))+)`;
// A dotted name (Hermes `_CFG_DOTTED_RE`: a dot anywhere in the name, which may hold more dots and
// hyphens). The whole run is matched and the dot and keyword are checked in code, which keeps the
// pattern linear; the value is read after a secret name only, as for ENV_UPPER_RE.
const CFG_DOTTED_RE = /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(=(?!=))/g;
const CFG_VALUE_RE = new RegExp(CFG_VALUE, 'y');
// Gateway: a rendered line-number gutter before a line-anchored key: `5|` from
// read_file, `6:` from `grep -n`, `7-` from grep's context lines, `   8<TAB>` from `cat -n`. Without
// it the numbered copy of a secret-bearing file leaks what its raw text masks. The gutter starts
// with digits, so the whitespace runs before and after it never meet (no quadratic retry).
const LINE_NUMBER_GUTTER = String.raw`(?:[0-9]{1,12}(?:[|:-]|\t)[ \t]*)?`;
const CFG_ANCHORED_RE = new RegExp(
  String.raw`^([ \t]*${LINE_NUMBER_GUTTER}(?:export[ \t]+)?)([A-Za-z0-9_-]+)(=(?!=))` + CFG_VALUE,
  'gm',
);

/**
 * `text` with each assignment found by `nameRe` (groups: name, separator) whose name `isSecret`
 * replaced, name and value (read by the sticky `valueRe` right after the separator), by what
 * `replace` returns for it (the same text when the value is to stay). Scanning resumes after the
 * value of a secret name (as a regex substitution would) and right after the separator of any
 * other, so the value of a non-secret assignment is scanned for assignments of its own.
 */
function replaceAssignments(
  text: string,
  nameRe: RegExp,
  valueRe: RegExp,
  isSecret: (name: string) => boolean,
  replace: (name: string, sep: string, raw: string) => string,
): string {
  let out = '';
  let last = 0;
  nameRe.lastIndex = 0;
  for (let m = nameRe.exec(text); m !== null; m = nameRe.exec(text)) {
    const [head, name, sep] = m as unknown as [string, string, string];
    if (!isSecret(name)) continue;
    const valueAt = m.index + head.length;
    valueRe.lastIndex = valueAt;
    const value = valueRe.exec(text);
    if (value === null) continue;
    out += text.slice(last, m.index) + replace(name, sep, value[0]);
    last = valueAt + value[0].length;
    nameRe.lastIndex = last;
  }
  return last === 0 ? text : out + text.slice(last);
}

const isNameChar = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
const isBlank = (ch: string): boolean => ch === ' ' || ch === '\t';

/**
 * replaceAssignments for `NAME[ \t]*=(?!=)[ \t]*` with NAME a whole `[A-Za-z0-9_]` run, found from
 * each `=` backwards instead of by a scan over every identifier: the same matches, for the cost of
 * the text's `=` signs (a pass whose names are rare reads little else).
 */
function replaceAssignmentsAtEquals(
  text: string,
  valueRe: RegExp,
  isSecret: (name: string) => boolean,
  replace: (name: string, sep: string, raw: string) => string,
): string {
  let out = '';
  let last = 0;
  for (let eq = text.indexOf('='); eq >= 0; eq = text.indexOf('=', Math.max(eq + 1, last))) {
    if (text.charAt(eq + 1) === '=') continue;
    let nameEnd = eq;
    while (nameEnd > 0 && isBlank(text.charAt(nameEnd - 1))) nameEnd--;
    let nameStart = nameEnd;
    while (nameStart > 0 && isNameChar(text.charCodeAt(nameStart - 1))) nameStart--;
    // No name, or one that runs back into a value already replaced.
    if (nameStart === nameEnd || nameStart < last) continue;
    const name = text.slice(nameStart, nameEnd);
    if (!isSecret(name)) continue;
    let valueAt = eq + 1;
    while (valueAt < text.length && isBlank(text.charAt(valueAt))) valueAt++;
    valueRe.lastIndex = valueAt;
    const value = valueRe.exec(text);
    if (value === null) continue;
    out += text.slice(last, nameStart) + replace(name, text.slice(nameEnd, valueAt), value[0]);
    last = valueAt + value[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}

export function redactEnvAssignments(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes('=')) return text;
  // Uppercase names run even when the text holds a URL: they never collide with (lowercase) query
  // parameters, and an env dump is exactly where `DATABASE_URL=…` sits beside `API_KEY=…`.
  text = replaceAssignments(
    text,
    ENV_UPPER_RE,
    ENV_VALUE_RE,
    (name) => ENV_NAME_KEYWORD_RE.test(name) || NEWER_ENV_NAME_KEYWORD_RE.test(name),
    (name, sep, raw) => {
      const masked = ENV_NAME_KEYWORD_RE.test(name)
        ? maskMaybeQuoted(raw, masker)
        : maskMaybeQuoted(raw, masker, newerPolicy(name, masker));
      return masked === raw ? name + sep + raw : `${name}=${masked}`;
    },
  );
  // Newer Hermes' any-case pass, after the upper-case one as there: it reads upper-case names
  // again, so a value the upper-case pass masked head/tail becomes `***` under a strong name
  // (`docker run -e API_TOKEN=***`), the less revealing of the two versions' answers. Off for text
  // holding a URL, as in Hermes (`token=` query parameters).
  if (!text.includes('://') && ANY_CASE_ENV_GATE_RE.test(text)) {
    text = replaceAssignmentsAtEquals(
      text,
      ENV_VALUE_RE,
      (name) => ANY_CASE_ENV_NAME_RE.test(name),
      (name, sep, raw) => {
        const masked = maskMaybeQuoted(raw, masker, newerPolicy(name, masker));
        return masked === raw ? name + sep + raw : `${name}=${masked}`;
      },
    );
  }
  // The lowercase forms would match `token=`/`key=` query parameters, and web-URL query values are
  // deliberately passed through (OAuth callbacks and magic links must round-trip), so they are off
  // for any text holding a URL, as in Hermes.
  // Both run after the upper-case pass, as in Hermes, so an upper-case assignment at the start of a
  // line is masked twice: its head/tail mask (13 characters) becomes `***`.
  if (!text.includes('://') && CFG_NAME_KEYWORD_RE.test(text)) {
    text = replaceAssignments(
      text,
      CFG_DOTTED_RE,
      CFG_VALUE_RE,
      (name) => name.includes('.') && CFG_NAME_KEYWORD_RE.test(name),
      (name, sep, raw) => name + sep + maskMaybeQuoted(raw, masker),
    );
    text = text.replace(CFG_ANCHORED_RE, (whole, lead: string, name: string, sep: string, raw: string) => {
      if (!CFG_NAME_KEYWORD_RE.test(name)) return whole;
      const masked = maskMaybeQuoted(raw, masker);
      return masked === raw ? whole : lead + name + sep + masked;
    });
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Pass 3: JSON fields
// ---------------------------------------------------------------------------------------------

const JSON_KEY_NAMES =
  'api_?key|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value|raw_secret|secret_input|key_material';
// Exact key names only (the quotes anchor them), so `"max_tokens"` is never a match.
export const JSON_FIELD_NAME_RE = new RegExp(`^(?:${JSON_KEY_NAMES})$`, 'i');
// Hermes `_JSON_FIELD_RE`; a masked field is written back as `"key": "value"`, one space after the
// colon, as Hermes writes it. The value may run over lines, as Hermes' `[^"]+` does.
// Gateway: the value is a proper JSON string body (escapes included), so `"ab\"cd"` is masked whole
// instead of being cut at the escaped quote, which would leave broken JSON and half a secret.
const JSON_FIELD_RE = new RegExp(String.raw`"(${JSON_KEY_NAMES})"\s*:\s*"((?:[^"\\]|\\.)*)"`, 'gi');
// The same field inside a JSON-encoded string, at any depth (`{"output": "{\"api_key\": \"…\"}"}`,
// and `\\\"` deeper down): tool results that wrap a config dump in JSON escape its quotes, so the rule
// above never sees the value. Newer Hermes `_JSON_FIELD_ESCAPED_RE` (upstream #115104): the key's
// and the value's escapes are the same run of backslashes. The lookbehind starts each attempt at
// the beginning of a backslash run, so a long run is scanned once.
const JSON_ESCAPED_FIELD_RE = new RegExp(
  String.raw`((?<!\\)(\\+)"(?:${JSON_KEY_NAMES})\2")\s*:\s*\2"([^"\\]+)\2"`,
  'gi',
);

/** The policy for a value held under one of the JSON field names (also used by redactDeep). */
export function maskJsonFieldValue(value: string, masker: Masker = OUTPUT_MASKER): string {
  return shouldMaskValue(value, masker) ? masker.value(value) : value;
}

export function redactJsonFields(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes('"') || !text.includes(':')) return text;
  text = text.replace(JSON_FIELD_RE, (whole, key: string, value: string) => {
    const masked = maskJsonFieldValue(value, masker);
    return masked === value ? whole : `"${key}": "${masked}"`;
  });
  if (text.includes('\\"')) {
    // Written back as Hermes writes it: `\"key\": \"value\"`, one space after the colon.
    text = text.replace(JSON_ESCAPED_FIELD_RE, (whole, key: string, escape: string, value: string) => {
      const masked = maskJsonFieldValue(value, masker);
      return masked === value ? whole : `${key}: ${escape}"${masked}${escape}"`;
    });
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Pass 3b: Python mapping repr fields (newer Hermes, agent/redact.py `_redact_python_repr_fields`,
// upstream #92586)
// ---------------------------------------------------------------------------------------------

// Hermes `_PYTHON_REPR_SECRET_KEYS` and `_PYTHON_REPR_CREDENTIAL_SUFFIXES` (its upper-case
// `_API_KEY`/`_TOKEN`/… suffixes are all among the case-folded ones).
const REPR_SECRET_KEYS: ReadonlySet<string> = new Set([
  'access_token', 'refresh_token', 'id_token', 'auth_token', 'token', 'api_key', 'apikey', 'client_secret', 'secret', 'password',
  'passwd', 'private_key', 'credential', 'credentials', 'authorization', 'bearer', 'secret_value', 'raw_secret', 'secret_input',
  'key_material',
]);
const REPR_CREDENTIAL_SUFFIXES = ['apikey', 'api_key', 'token', 'secret', 'password', 'passwd', 'credential', 'credentials'];

/**
 * Hermes `is_secret_field_name`: a mapping field holding a credential, by an exact name or a
 * credential suffix (`UserPassword`, `sessionToken`, `BRAVE_API_KEY`), never a metadata name that
 * only starts with one (`token_count`, `PASSWORD_POLICY`).
 */
export function isSecretFieldName(key: string): boolean {
  const folded = key.toLowerCase();
  return REPR_SECRET_KEYS.has(folded) || REPR_CREDENTIAL_SUFFIXES.some((suffix) => folded.endsWith(suffix));
}

// Hermes `_PYTHON_REPR_FIELD_RE`: `'key': 'value'`, `'key': b'value'`, `'key': "value"`, escapes
// read inside the value. The two alternatives of a value character never start alike, so a value is
// read once.
// What every field holds: a quote closing its key, then the colon.
const REPR_GATE_RE = /'\s*:/;
const REPR_FIELD_RE = /'([A-Za-z_][A-Za-z0-9_]*)'(\s*:\s*)(?:([bB]?)'((?:\\.|[^'\\])+)'|([bB]?)"((?:\\.|[^"\\])+)")/g;

/**
 * Credential fields of Python mapping reprs (`{'BRAVE_API_KEY': 'opaque-value'}`, in tracebacks and
 * pytest output), which the JSON rule's double quotes never reach, masked whole: `***` (the
 * file-read sentinel in file content). Quote style and a `b` prefix are kept; env lookups and values
 * already masked (`'Authorization': 'Digest ***'`) are left as they are.
 */
export function redactPythonReprFields(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!REPR_GATE_RE.test(text)) return text;
  return text.replace(
    REPR_FIELD_RE,
    (whole, key: string, sep: string, singlePrefix: string | undefined, single: string | undefined, doublePrefix: string | undefined, double: string | undefined) => {
      if (!isSecretFieldName(key)) return whole;
      const value = single ?? double ?? '';
      const quote = single !== undefined ? "'" : '"';
      if (ENV_LOOKUP_VALUE_RE.test(value) || value.includes(MASK) || value.startsWith('«redacted') || masker.keeps(value)) return whole;
      return `'${key}'${sep}${(single !== undefined ? singlePrefix : doublePrefix) ?? ''}${quote}${masker.full(value)}${quote}`;
    },
  );
}

// Hermes `_PYTEST_DIAGNOSTIC_LINE_RE` and `_PYTHON_EXCEPTION_LINE_RE`: pytest's introspection lines
// (`E       assert {'api_key': …}`) and a final exception line (`KeyError: {…}`,
// `requests.exceptions.HTTPError: …`), where a repr holding a credential is printed.
const PYTEST_DIAGNOSTIC_LINE_RE = /^[ \t]*E[ \t]{2,}/;
const PYTHON_EXCEPTION_LINE_RE = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning):[ \t]*/;

/**
 * Newer Hermes' `_redact_python_diagnostic_repr_fields`, for command output redacted as code: the
 * repr pass on the diagnostic lines only (the rest of the output keeps its source unchanged).
 */
export function redactPythonDiagnosticLines(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes("'") || !text.includes(':')) return text;
  return text.replace(/[^\r\n]+/g, (line) => {
    const head = PYTEST_DIAGNOSTIC_LINE_RE.exec(line) ?? PYTHON_EXCEPTION_LINE_RE.exec(line);
    return head === null ? line : head[0] + redactPythonReprFields(line.slice(head[0].length), masker);
  });
}

// ---------------------------------------------------------------------------------------------
// Pass 4: unquoted YAML `key: value`
// ---------------------------------------------------------------------------------------------

// Hermes `_YAML_ASSIGN_RE`: line-anchored, so `note: the secret meeting` mid-sentence is not a
// key. One whitespace-free value, up to an `&` as in Hermes: `password: hunter2`.
// Gateway: also a `- ` list item, a line-number gutter, and one quoted value on the line (Hermes
// leaves quoted values to its JSON pass, which needs a quoted key); and the pass runs when the
// text holds a URL too (Hermes skips it then: the values of YAML keys are not query parameters).
const YAML_ASSIGN_RE = new RegExp(
  String.raw`^([ \t]*${LINE_NUMBER_GUTTER}(?:-[ \t]+)?)([A-Za-z0-9_.-]+)(:[ \t]*)("[^"\n]*"|'[^'\n]*'|["']?(?:[^\s"'&]|["'](?![&]|${QUOTE_CLOSES}))+)`,
  'gm',
);

export function redactYaml(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes(':') || !YAML_NAME_KEYWORD_RE.test(text)) return text;
  return text.replace(YAML_ASSIGN_RE, (whole, lead: string, name: string, sep: string, raw: string) => {
    if (!YAML_NAME_KEYWORD_RE.test(name)) return whole;
    // A URL value is left to the URL passes: Hermes runs this pass only on text without `://`, so it
    // never masks one (`token_url: https://auth.example.com/token` is an endpoint, not a secret).
    if (raw.includes('://')) return whole;
    const masked = maskMaybeQuoted(raw, masker);
    return masked === raw ? whole : lead + name + sep + masked;
  });
}
