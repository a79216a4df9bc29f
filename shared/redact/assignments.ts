// Passes 2-4 of shared/redact.ts (ENV/config, JSON fields, YAML) and the value policy they share.

import { ALREADY_MASKED_RE, OUTPUT_MASKER, type Masker } from './mask.js';

// ---------------------------------------------------------------------------------------------
// Shared policy for the assignment passes (2 ENV/config, 3 JSON, 4 YAML)
// ---------------------------------------------------------------------------------------------

// Secret keywords inside a key name, as Hermes reads them: a name that CONTAINS one is a secret's
// name, whatever surrounds the keyword (`MAX_TOKENS`, `AUTHOR`, `tokenizer` included: Hermes masks
// their values, and the gateway masks at least what Hermes masks).
// - ENV (`_ENV_ASSIGN_RE`): upper-case names only, `API_KEY`/`APIKEY`, `AUTH` counts.
const ENV_NAME_KEYWORD_RE = /API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/;
// - config (`_CFG_DOTTED_RE`, `_CFG_ANCHORED_RE`): any case, `api_key`/`api.key`/`api-key`/`apikey`.
const CFG_NAME_KEYWORD_RE = /api[ _.-]?key|token|secret|passwd|password|credential|auth/i;
// - YAML (`_YAML_ASSIGN_RE`): as config but without bare `auth` (`author:`; `Authorization:` is
//   pass 5's, which keeps the scheme). `auth_token` still counts through `token`.
const YAML_NAME_KEYWORD_RE = /api[ _.-]?key|token|secret|passwd|password|credential/i;

// Values that name a variable rather than hold a secret: masking them corrupts code snippets shown
// in prose (`API_KEY = os.getenv("OPENAI_API_KEY")`, Hermes issue #2852). Hermes' one exception.
const ENV_LOOKUP_VALUE_RE = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/;

function shouldMaskValue(value: string, masker: Masker): boolean {
  if (value === '') return false;
  // A mask that was in the text before this redaction stays (see Masker.keeps).
  if (masker.keeps(value)) return false;
  // Gateway: a PEM block assigned to a variable is left whole for pass 8. Hermes masks its first
  // word (`-----BEGIN`), which hides the BEGIN marker from its private-key pass and leaves the key
  // body in the clear.
  if (/^["']?-----BEGIN/.test(value)) return false;
  if (ENV_LOOKUP_VALUE_RE.test(value)) return false;
  return true;
}

/** Mask a raw value that may be wrapped in matching quotes; the quotes are kept. */
function maskMaybeQuoted(raw: string, masker: Masker): string {
  const q = raw.charAt(0);
  const quoted = raw.length >= 2 && (q === '"' || q === "'") && raw.endsWith(q);
  const inner = quoted ? raw.slice(1, -1) : raw;
  if (!shouldMaskValue(inner, masker)) return raw;
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

export function redactEnvAssignments(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes('=')) return text;
  // Uppercase names run even when the text holds a URL: they never collide with (lowercase) query
  // parameters, and an env dump is exactly where `DATABASE_URL=…` sits beside `API_KEY=…`.
  text = replaceAssignments(
    text,
    ENV_UPPER_RE,
    ENV_VALUE_RE,
    (name) => ENV_NAME_KEYWORD_RE.test(name),
    (name, sep, raw) => {
      const masked = maskMaybeQuoted(raw, masker);
      return masked === raw ? name + sep + raw : `${name}=${masked}`;
    },
  );
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
// Gateway: the same field inside a JSON-encoded string (`{"output": "{\"api_key\": \"…\"}"}`): tool results
// that wrap a config dump in JSON escape its quotes, so the rule above never sees the value.
const JSON_ESCAPED_FIELD_RE = new RegExp(
  String.raw`(\\"(${JSON_KEY_NAMES})\\"\s*:\s*\\")([^"\\\n]+)(\\")`,
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
    text = text.replace(JSON_ESCAPED_FIELD_RE, (whole, head: string, _key: string, value: string, tail: string) => {
      const masked = maskJsonFieldValue(value, masker);
      return masked === value ? whole : head + masked + tail;
    });
  }
  return text;
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
