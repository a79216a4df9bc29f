// Passes 2-4 of shared/redact.ts (ENV/config, JSON fields, YAML) and the value policy they share.

import { ALREADY_MASKED_RE, OUTPUT_MASKER, type Masker } from './mask.js';

// ---------------------------------------------------------------------------------------------
// Shared policy for the assignment passes (2 ENV/config, 3 JSON, 4 YAML)
// ---------------------------------------------------------------------------------------------

// Secret keywords inside a key name. `passw(?:or)?d` = passwd | password.
const NAME_KEYWORD_RE = /api[_.-]?key|token|secret|passw(?:or)?d|credential|auth/gi;
// Cheap pre-gate for the lowercase/dotted/YAML passes: no keyword anywhere => no match possible.
const ANY_KEYWORD_RE = /api[ _.-]?key|token|secret|passw(?:or)?d|credential|auth/i;
const LOWER_LETTER_RE = /[a-z]/;
const ANY_LETTER_RE = /[A-Za-z]/;
const AUTH_COMPOUND_RE = /^(?:[_.-]?key|orization)/i;

type KeywordStrength = 'none' | 'weak' | 'strong';

/**
 * How strongly a key name says "this holds a credential".
 * - `token` alone is weak: it also names model limits (`MAX_TOKENS`, `max_tokens`).
 * - every other keyword is strong.
 * A keyword counts only where no lowercase letter follows it (one plural `s` aside), so words
 * that merely contain one do not (`tokenizer:`, `secretary:`), while `API_TOKEN`, `clientSecret`
 * and the all-caps `MYTOKENS` (Hermes' legacy "contains" rule; all-caps names are almost never
 * prose) do. `auth` must be followed by a non-letter in any case, except in the compounds
 * `authkey`/`authorization`, because `AUTHOR`/`AUTHORITY` are ordinary words in capitals too.
 */
function keywordStrength(name: string, allowAuth: boolean): KeywordStrength {
  let strength: KeywordStrength = 'none';
  for (const m of name.matchAll(NAME_KEYWORD_RE)) {
    const keyword = m[0].toLowerCase();
    const end = m.index + m[0].length;
    const next = name.charAt(end);
    if (keyword === 'auth') {
      if (!allowAuth) continue;
      if (ANY_LETTER_RE.test(next) && !AUTH_COMPOUND_RE.test(name.slice(end, end + 10))) continue;
    } else if (LOWER_LETTER_RE.test(next)) {
      // A single plural `s` is still the keyword (`tokens`, `secrets`, `credentials`).
      if (next !== 's' || LOWER_LETTER_RE.test(name.charAt(end + 1))) continue;
    }
    if (keyword !== 'token') return 'strong';
    strength = 'weak';
  }
  return strength;
}

// Values that name a variable rather than hold a secret: masking them corrupts code snippets shown
// in prose (`API_KEY = os.getenv("OPENAI_API_KEY")`, Hermes issue #2852).
const ENV_LOOKUP_VALUE_RE = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/;
// A whole value that is just `$VAR` / `${VAR}`: a reference, not a credential
// (`GITHUB_TOKEN=$GH_TOKEN`). Password-class keys still mask it: a literal password may begin
// with `$`, and masking a password placeholder costs nothing.
const SHELL_VAR_REF_RE = /^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$/;
const PASSWORD_NAME_RE = /passw(?:or)?d/i;
// Flags and empties are configuration, not credentials (`REQUIRE_AUTH=true`, `password: null`).
const NON_SECRET_LITERAL_RE = /^(?:true|false|yes|no|on|off|null|none|nil|undefined)$/i;
// `MAX_TOKENS=4096`, `max_tokens: 128000`: a small integer under a weak (token-only) name is a
// limit. Not applied to strong names, where a numeric value may well be a PIN or password.
const SMALL_INT_RE = /^\d{1,9}$/;
// `TOKEN_URL=https://…/token`, `auth_endpoint: https://…`: an endpoint setting whose name happens
// to contain a keyword. Credentials embedded in such URLs are still caught by passes 9 and 10.
const ENDPOINT_NAME_RE = /ur[il]|endpoint/i;
const URL_VALUE_RE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

function shouldMaskValue(name: string, value: string, strength: KeywordStrength): boolean {
  if (strength === 'none' || value === '') return false;
  if (ALREADY_MASKED_RE.test(value)) return false;
  // A PEM block assigned to a variable is left whole for pass 8: masking just its first word
  // would destroy the BEGIN marker that pass 8 looks for and leak the key body.
  if (value.startsWith('-----BEGIN')) return false;
  if (ENV_LOOKUP_VALUE_RE.test(value)) return false;
  if (NON_SECRET_LITERAL_RE.test(value)) return false;
  if (SHELL_VAR_REF_RE.test(value) && !PASSWORD_NAME_RE.test(name)) return false;
  if (strength === 'weak' && SMALL_INT_RE.test(value)) return false;
  if (ENDPOINT_NAME_RE.test(name) && URL_VALUE_RE.test(value)) return false;
  return true;
}

/** Mask a raw value that may be wrapped in matching quotes; the quotes are kept. */
function maskMaybeQuoted(name: string, raw: string, strength: KeywordStrength, masker: Masker): string {
  const q = raw.charAt(0);
  const quoted = raw.length >= 2 && (q === '"' || q === "'") && raw.endsWith(q);
  const inner = quoted ? raw.slice(1, -1) : raw;
  if (!shouldMaskValue(name, inner, strength)) return raw;
  const masked = masker.value(inner);
  return quoted ? q + masked + q : masked;
}

// ---------------------------------------------------------------------------------------------
// Pass 2: ENV / config assignments
// ---------------------------------------------------------------------------------------------

// A quoted value may contain spaces but not a line break; an unquoted one runs to whitespace or a
// quote. Stopping at quotes keeps the closing quote of an enclosing string (`{"env": "API_KEY=x"}`)
// out of the mask, so redaction never breaks the syntax around a value. `=(?!=)` keeps
// `TOKEN == x` comparisons out.
const ENV_UPPER_RE = /(?<![A-Z0-9_])([A-Z0-9_]+)([ \t]*=(?!=)[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"']+)/g;
// Lowercase/dotted config values also stop at `&`, so a form body (`password=x&user=y`) is masked
// pair by pair (pass 12) instead of being swallowed whole. No spaces around `=`, as in Hermes:
// `self.password = password` is code, `spring.datasource.password=x` is config.
const CFG_VALUE = String.raw`("[^"\n]*"|'[^'\n]*'|[^\s&"']+)`;
const CFG_DOTTED_RE = new RegExp(
  String.raw`(?<![A-Za-z0-9_.-])([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+)(=(?!=))` + CFG_VALUE,
  'g',
);
// A rendered line-number gutter before a line-anchored key (Hermes `_LINE_NUMBER_GUTTER`): `5|` from
// read_file, `6:` from `grep -n`, `7-` from grep's context lines, `   8<TAB>` from `cat -n`. Without
// it the numbered copy of a secret-bearing file leaks what its raw text masks. The gutter starts
// with digits, so the whitespace runs before and after it never meet (no quadratic retry).
const LINE_NUMBER_GUTTER = String.raw`(?:[0-9]{1,12}(?:[|:-]|\t)[ \t]*)?`;
const CFG_ANCHORED_RE = new RegExp(
  String.raw`^([ \t]*${LINE_NUMBER_GUTTER}(?:export[ \t]+)?)([A-Za-z0-9_.-]+)(=(?!=))` + CFG_VALUE,
  'gm',
);

export function redactEnvAssignments(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes('=')) return text;
  // Uppercase names run even when the text holds a URL: they never collide with (lowercase) query
  // parameters, and an env dump is exactly where `DATABASE_URL=…` sits beside `API_KEY=…`.
  text = text.replace(ENV_UPPER_RE, (whole, name: string, sep: string, raw: string) => {
    const masked = maskMaybeQuoted(name, raw, keywordStrength(name, true), masker);
    return masked === raw ? whole : name + sep + masked;
  });
  // The lowercase forms would match `token=`/`key=` query parameters, and web-URL query values are
  // deliberately passed through (OAuth callbacks and magic links must round-trip), so they are off
  // for any text holding a URL, as in Hermes.
  if (!text.includes('://') && ANY_KEYWORD_RE.test(text)) {
    text = text.replace(CFG_DOTTED_RE, (whole, name: string, sep: string, raw: string) => {
      const masked = maskMaybeQuoted(name, raw, keywordStrength(name, true), masker);
      return masked === raw ? whole : name + sep + masked;
    });
    text = text.replace(CFG_ANCHORED_RE, (whole, lead: string, name: string, sep: string, raw: string) => {
      const masked = maskMaybeQuoted(name, raw, keywordStrength(name, true), masker);
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
// The value is a proper JSON string body (escapes included), so `"ab\"cd"` is masked whole
// instead of being cut at the escaped quote, which would leave broken JSON and half a secret.
const JSON_FIELD_RE = new RegExp(String.raw`("(${JSON_KEY_NAMES})"\s*:\s*")((?:[^"\\\n]|\\.)*)(")`, 'gi');
// The same field inside a JSON-encoded string (`{"output": "{\"api_key\": \"…\"}"}`): tool results
// that wrap a config dump in JSON escape its quotes, so the rule above never sees the value.
const JSON_ESCAPED_FIELD_RE = new RegExp(
  String.raw`(\\"(${JSON_KEY_NAMES})\\"\s*:\s*\\")([^"\\\n]+)(\\")`,
  'gi',
);

/** The policy for a value held under one of the JSON field names (also used by redactDeep). */
export function maskJsonFieldValue(key: string, value: string, masker: Masker = OUTPUT_MASKER): string {
  // `token` alone is weak (`"token": "4096"` is a limit); the rest of the list is credential-only.
  const strength: KeywordStrength = key.toLowerCase() === 'token' ? 'weak' : 'strong';
  if (!shouldMaskValue(key, value, strength)) return value;
  return masker.value(value);
}

export function redactJsonFields(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes('"') || !text.includes(':')) return text;
  const sub = (whole: string, head: string, key: string, value: string, tail: string): string => {
    const masked = maskJsonFieldValue(key, value, masker);
    return masked === value ? whole : head + masked + tail;
  };
  text = text.replace(JSON_FIELD_RE, sub);
  if (text.includes('\\"')) text = text.replace(JSON_ESCAPED_FIELD_RE, sub);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Pass 4: unquoted YAML `key: value`
// ---------------------------------------------------------------------------------------------

// Line-anchored (optionally a `- ` list item) so `note: the secret meeting` mid-sentence is not a
// key. One whitespace-free value (or one quoted value on the line): `password: hunter2`.
const YAML_ASSIGN_RE = new RegExp(
  String.raw`^([ \t]*${LINE_NUMBER_GUTTER}(?:-[ \t]+)?)([A-Za-z0-9_.-]+)(:[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'#][^\s"']*)`,
  'gm',
);

export function redactYaml(text: string, masker: Masker = OUTPUT_MASKER): string {
  if (!text.includes(':') || !ANY_KEYWORD_RE.test(text)) return text;
  return text.replace(YAML_ASSIGN_RE, (whole, lead: string, name: string, sep: string, raw: string) => {
    // Bare `auth` is not a YAML keyword: `Authorization:` is pass 5's (which keeps the scheme)
    // and `author:` is not a secret. `auth_token` still counts via `token`.
    const masked = maskMaybeQuoted(name, raw, keywordStrength(name, false), masker);
    return masked === raw ? whole : lead + name + sep + masked;
  });
}
