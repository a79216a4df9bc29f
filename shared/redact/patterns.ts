// Passes 5-13 of shared/redact.ts: headers, Telegram tokens, PEM keys, URL credentials, JWTs,
// form bodies and phone numbers.

import { MASK } from './mask.js';

// ---------------------------------------------------------------------------------------------
// Passes 5-7: headers and Telegram tokens
// ---------------------------------------------------------------------------------------------

// Header name and scheme word are kept (`Authorization: Bearer ***`) so the output still says
// what kind of credential it was. The credential class excludes quotes: swallowing the closing
// quote of `-H "Authorization: Bearer x"` would turn value corruption into syntax corruption.
// Gateway: the JSON/dict form (`"Authorization": "Bearer x"`, `\"Authorization\": \"Bearer x\"`),
// which Hermes' pattern does not reach: a quote (possibly escaped) after the name, and then one
// before the value too, so `{"Authorization": f"Bearer {token}"}` in source is not a header. The
// credential class also stops at an escaped quote (`\"`), not at other backslashes.
// `[ \t]` rather than Hermes' `\s`: a bare `Authorization:` at a line end never masks the next line.
export const AUTH_HEADER_RE =
  /((?:Proxy-)?Authorization(?:[ \t]*:[ \t]*(?:\\?["'])?|\\?["'][ \t]*:[ \t]*\\?["']))([A-Za-z][\w.+-]*[ \t]+)?((?:[^\s"'\\]|\\(?!["']))+)/gi;
export const AUTH_GATE_RE = /authorization/i;

// Single opaque value, no scheme word: an echoed `curl -H 'x-api-key: …'` would otherwise leak any
// key without a vendor prefix. The quoted dict form (`"x-api-key": "…"`) is accepted for the
// hyphenated header names only: a quoted `"apiKey":` is a JSON field, which is pass 3's to judge
// (and to skip in codeFile mode, where it is usually a fixture).
// Gateway: Postmark's server and account token headers too (Postmark tokens are bare UUIDs, so
// the header name is the only thing that marks them).
// No boundary before the name, as in Hermes: `X-My-Api-Key:` holds `api-key:`. A quote inside the
// value ends it only where it closes something (as QUOTE_CLOSES in value-policy.ts); after an opening
// quote the value ends at the next quote (pipeline.ts cuts it there).
export const SECRET_HEADER_RE =
  /((?:api-?key|x-api-token|x-auth-token|x-access-token|x-postmark-(?:server|account)-token)[ \t]*:[ \t]*(?:\\?["'])?|(?:api-key|x-api-token|x-auth-token|x-access-token|x-postmark-(?:server|account)-token)\\?["'][ \t]*:[ \t]*\\?["'])((?:[^\s"'\\]|\\(?!["'])|["'](?![,;)}\]>]*(?:\s|$)))+)/gi;
export const SECRET_HEADER_GATE_RE = /api-?key|-token/i;

// `bot<id>:<secret>` / `<id>:<secret>`. The lookbehind starts each attempt at the beginning of a
// digit run: without it a long digit blob retries `\d{8,}` from every digit (Hermes found this
// quadratic on a 2 MB diff).
export const TELEGRAM_RE = /(?<!\d)(bot)?(\d{8,}):([-A-Za-z0-9_]{30,})/g;

// ---------------------------------------------------------------------------------------------
// Pass 8: PEM private keys
// ---------------------------------------------------------------------------------------------

// Gateway: `PRIVATE KEY BLOCK` too (OpenPGP secret keys, `gpg --export-secret-keys --armor`).
const PEM_BEGIN_RE = /-----BEGIN[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END_RE = /-----END[A-Z ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
// Gateway: a block with no END marker (output truncated by the size cap) still holds key material.
// Its body (base64 lines, plus the `Proc-Type:`/`DEK-Info:` headers of legacy encrypted keys) is
// redacted up to the first line that is not part of a PEM body.
// Whole lines only, so prose after a truncated block survives; a blank line is crossed only when a
// body line follows it (the gap after the legacy headers).
const PEM_UNTERMINATED_BODY_RE =
  /(?:\r?\n(?:[A-Za-z0-9+/=]+(?=\r?\n|$)|(?:Proc-Type|DEK-Info):[^\r\n]*|(?=\r?\n[A-Za-z0-9+/=]+(?:\r?\n|$))))*/y;
const PEM_REPLACEMENT = '[REDACTED PRIVATE KEY]';

/**
 * Hand-rolled rather than Hermes' `BEGIN[\s\S]*?END`: that lazy scan restarts at every BEGIN, so
 * many BEGIN markers without an END cost O(n²). Here each END search happens at most once past any
 * point: once no END follows position p, no later BEGIN can have one either.
 */
export function redactPrivateKeys(text: string): string {
  let out = '';
  let pos = 0;
  let endSearchFailed = false;
  for (;;) {
    PEM_BEGIN_RE.lastIndex = pos;
    const begin = PEM_BEGIN_RE.exec(text);
    if (!begin) break;
    const headerEnd = begin.index + begin[0].length;
    let blockEnd: number;
    let end: RegExpExecArray | null = null;
    if (!endSearchFailed) {
      PEM_END_RE.lastIndex = headerEnd;
      end = PEM_END_RE.exec(text);
      if (!end) endSearchFailed = true;
    }
    if (end) {
      blockEnd = end.index + end[0].length;
    } else {
      PEM_UNTERMINATED_BODY_RE.lastIndex = headerEnd;
      PEM_UNTERMINATED_BODY_RE.exec(text);
      blockEnd = PEM_UNTERMINATED_BODY_RE.lastIndex;
    }
    out += text.slice(pos, begin.index) + PEM_REPLACEMENT;
    pos = blockEnd;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

// ---------------------------------------------------------------------------------------------
// Passes 9-10: credentials in URLs
// ---------------------------------------------------------------------------------------------

// `scheme://user:PASSWORD@`. No whitespace in user or password, so a match never runs past the end
// of a code line to some later `@` (a decorator, an e-mail address). Lengths are bounded so a text
// of many scheme prefixes without an `@` stays linear.
// Gateway: the user may be empty (`redis://:password@host`, the usual Redis form, which Hermes'
// `[^:\s]+` misses), and the TLS variants `rediss`/`amqps` are included.
export const DB_CONNSTR_RE =
  /((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]{0,256}:)([^@\s]{1,512})(@)/gi;
// A template placeholder, not a literal: f"postgresql://{user}:{pw}@{host}" or JS `${pw}`.
export const TEMPLATE_PLACEHOLDER_RE = /^\$?\{[^{}]*\}$/;

// `https://TOKEN@github.com/…` (git remote set-url with a bare PAT). Round-trip URLs carry tokens in
// the query string, never as bare userinfo, so this cannot break an OAuth flow. `user:pass@` is
// deliberately passed through (the class forbids `:`); 8+ chars skips short usernames (`git@`).
// The class forbids `/?#` so an `@` in a path or query (`?email=a@b.com`) never counts.
export const URL_BARE_TOKEN_RE = /((?:https?|wss?|git|ssh|ftps?|sftp):\/\/)([^\s:@/?#]{8,})(?=@)/gi;

// Gateway: `scheme://user:PASSWORD@host` in any scheme (basic-auth URLs: `https://deploy:pw@host`,
// `ftp://…`, `amqps://…`, `smtp://…`): the password is masked, the user and host kept. Hermes
// passes web-URL userinfo through so that links round-trip; a credential in a tool result is worth
// more than that. RFC 3986 userinfo cannot hold `/?#@`, so a port or an `@` later in a path or
// query (`https://host:8080/p?email=a@b.c`) is never taken for a password. Lengths are bounded so
// a text of many scheme prefixes without an `@` stays linear.
export const URL_PASSWORD_RE = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s:@/?#]{0,256}:)([^\s@/?#]{1,256})(?=@)/g;

// ---------------------------------------------------------------------------------------------
// Passes 11-13: JWTs, form bodies, phone numbers
// ---------------------------------------------------------------------------------------------

// Header, payload and signature (1-3 segments). No boundary before `eyJ`, as in Hermes: a JWT
// glued to other text (`token=eyJ…`, `\neyJ…` in escaped JSON) is still one, and so is a window that
// spells `eyJ…` inside a larger base64 blob.
export const JWT_RE = /eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}/g;

// Only when the ENTIRE text is `k=v&k=v`: query strings inside prose or URLs are passed through.
const FORM_BODY_RE = /^[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*)+$/;
// Hermes masks a form body's values by `_SENSITIVE_QUERY_PARAMS` (0.19: OAuth codes, sessions and
// pre-signed signatures among them; newer Hermes adds `x-goog-signature` and `sig`, GCS and Azure
// SAS signatures). Gateway: also `private_key` and `authorization`, from 0.19's list of body keys.
const FORM_SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'api_key',
  'apikey',
  'client_secret',
  'password',
  'auth',
  'jwt',
  'session',
  'secret',
  'key',
  'code',
  'signature',
  'x-amz-signature',
  'x-goog-signature',
  'sig',
  'private_key',
  'authorization',
]);

export function redactFormBody(text: string): string {
  if (text.includes('\n')) return text;
  const body = text.trim();
  if (!FORM_BODY_RE.test(body)) return text;
  const redacted = body
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (!FORM_SENSITIVE_KEYS.has(key.toLowerCase()) || value === '' || value === MASK) return pair;
      return `${key}=${MASK}`;
    })
    .join('&');
  // A masked body is returned without the whitespace around it, as Hermes returns it. Gateway: a
  // body with nothing to mask is returned as it was (Hermes strips it too), so redaction changes
  // only text that holds a secret.
  return redacted === body ? text : redacted;
}

// E.164: `+`, a non-zero digit, 7-15 digits in all. The boundary after it rejects hex strings and
// longer digit runs; as in Hermes there is none before it (`1+2345678` is masked too).
export const PHONE_RE = /(\+[1-9]\d{6,14})(?![A-Za-z0-9])/g;

export function maskPhone(phone: string): string {
  const keep = phone.length <= 8 ? 2 : 4;
  return `${phone.slice(0, keep)}****${phone.slice(-keep)}`;
}
