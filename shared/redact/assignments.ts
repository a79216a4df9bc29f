// Pass 2 of shared/redact.ts: ENV and config assignments (`NAME=value`, `api.key=value`).

import { OUTPUT_MASKER, type Masker } from './mask.js';
import { ANY_CASE_ENV_GATE_RE, ANY_CASE_ENV_NAME_RE, CFG_NAME_KEYWORD_RE, LINE_NUMBER_GUTTER, ENV_NAME_KEYWORD_RE, maskMaybeQuoted, NEWER_ENV_NAME_KEYWORD_RE, newerPolicy, QUOTE_CLOSES } from './value-policy.js';

// ---------------------------------------------------------------------------------------------
// Pass 2: ENV / config assignments
// ---------------------------------------------------------------------------------------------


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
