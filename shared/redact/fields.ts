// Passes 3 and 4 of shared/redact.ts: JSON fields, Python mapping repr fields and diagnostic
// lines, unquoted YAML `key: value`.

import { MASK, OUTPUT_MASKER, type Masker } from './mask.js';
import { ENV_LOOKUP_VALUE_RE, LINE_NUMBER_GUTTER, maskMaybeQuoted, QUOTE_CLOSES, shouldMaskValue, YAML_NAME_KEYWORD_RE } from './value-policy.js';

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
function isSecretFieldName(key: string): boolean {
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
