// The gateway's one secret-redaction module. Every tool result, log line and memory write passes
// through here, so the rules live in exactly one place.
//
// Port of the passes of Hermes Agent's `agent/redact.py` (see the steering reference, section 10),
// applied in the same order. Differences from Hermes are marked "Gateway:" where they occur.
//
// Performance contract: this runs on every tool result (up to 65,536 chars), so
//   - every regex is compiled once, at module load;
//   - every pass sits behind a cheap substring gate that its regex needs in order to match, so a
//     gate can skip work but never hide a secret, and text without the trigger characters of a
//     pass (`=`, `:`, `://`, `eyJ`, a key prefix…) pays one `includes` for it;
//   - every regex is linear: no nested or adjacent unbounded quantifiers over overlapping classes.
//     Where a pattern would otherwise retry a greedy run from every byte of a long identifier, a
//     lookbehind anchors the attempt to the start of the run, and "does this name hold a secret
//     keyword?" is decided in code on the captured name instead of inside the regex (the
//     `[A-Z_]*KEYWORD[A-Z_]*` shape is quadratic on long identifiers).

export interface RedactOptions {
  /**
   * The text is source code or a file's contents (file reads, code-execution output). Skips the
   * ENV / config / JSON / YAML assignment passes, which would otherwise mangle legitimate code
   * (`MAX_TOKENS=100`, `"apiKey": "test"` fixtures), exactly as Hermes' `code_file=True` does.
   * Prefix-matched keys, headers, PEM blocks, URL credentials and JWTs are still redacted.
   */
  codeFile?: boolean;
}

const MASK = '***';

/**
 * Hermes `_mask_token`: tokens of 18+ characters keep their first 6 and last 4 characters so a
 * human can still tell which key leaked; anything shorter is fully masked, because 10 visible
 * characters of a short secret would be most of it.
 */
export function maskToken(token: string): string {
  // Code points, not UTF-16 units, so a mask never splits a surrogate pair.
  const chars = Array.from(token);
  if (chars.length < 18) return MASK;
  return `${chars.slice(0, 6).join('')}...${chars.slice(-4).join('')}`;
}

// Output of this module (`***`, or a maskToken head/tail form). Re-masking such a value would only
// erase the head/tail hint it deliberately kept, and would make redact() non-idempotent, so
// containsSecret(redact(x)) would report a secret in already-clean text.
const ALREADY_MASKED_RE = /^(?:\*\*\*|\S{6}\.\.\.\S{4})$/u;

/**
 * maskToken for a value cut out of surrounding text. A value holding a backslash is fully masked:
 * in JSON-escaped text a 6-char head could end in half an escape (`abcde\...`), breaking the
 * syntax of the text around it.
 */
function maskValue(value: string): string {
  return value.includes('\\') ? MASK : maskToken(value);
}

function maskUnlessMasked(value: string): string {
  return ALREADY_MASKED_RE.test(value) ? value : maskValue(value);
}

// ---------------------------------------------------------------------------------------------
// Pass 1: known key prefixes
// ---------------------------------------------------------------------------------------------

// [literal prefix, pattern]. Every pattern begins with its literal, which is what the cheap gate
// searches for, so the gate can never skip a pattern that would have matched.
const PREFIX_PATTERNS: ReadonlyArray<readonly [string, string]> = [
  ['sk-', String.raw`sk-[A-Za-z0-9_-]{10,}`], // OpenAI / OpenRouter / Anthropic
  ['ghp_', String.raw`ghp_[A-Za-z0-9]{10,}`], // GitHub PAT (classic)
  ['github_pat_', String.raw`github_pat_[A-Za-z0-9_]{10,}`], // GitHub PAT (fine-grained)
  ['gho_', String.raw`gho_[A-Za-z0-9]{10,}`], // GitHub OAuth
  ['ghu_', String.raw`ghu_[A-Za-z0-9]{10,}`], // GitHub user-to-server
  ['ghs_', String.raw`ghs_[A-Za-z0-9]{10,}`], // GitHub server-to-server
  ['ghr_', String.raw`ghr_[A-Za-z0-9]{10,}`], // GitHub refresh
  ['xapp-', String.raw`xapp-\d+-[A-Za-z0-9-]{10,}`], // Slack app-level token
  ['xox', String.raw`xox[baprs]-[A-Za-z0-9-]{10,}`], // Slack bot/user tokens
  ['AIza', String.raw`AIza[A-Za-z0-9_-]{30,}`], // Google API key
  ['pplx-', String.raw`pplx-[A-Za-z0-9]{10,}`], // Perplexity
  ['fal_', String.raw`fal_[A-Za-z0-9_-]{10,}`], // Fal.ai
  ['fc-', String.raw`fc-[A-Za-z0-9]{10,}`], // Firecrawl
  ['bb_live_', String.raw`bb_live_[A-Za-z0-9_-]{10,}`], // BrowserBase
  ['gAAAA', String.raw`gAAAA[A-Za-z0-9_=-]{20,}`], // Fernet / Codex encrypted tokens
  ['AKIA', String.raw`AKIA[A-Z0-9]{16}`], // AWS access key id
  ['sk_live_', String.raw`sk_live_[A-Za-z0-9]{10,}`], // Stripe secret (live)
  ['sk_test_', String.raw`sk_test_[A-Za-z0-9]{10,}`], // Stripe secret (test)
  ['rk_live_', String.raw`rk_live_[A-Za-z0-9]{10,}`], // Stripe restricted
  // Gateway: real SendGrid keys are `SG.<id>.<secret>`; Hermes' single-segment pattern stops at
  // the second dot and leaves the secret half visible, so the second segment is included.
  ['SG.', String.raw`SG\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]+)?`], // SendGrid
  ['hf_', String.raw`hf_[A-Za-z0-9]{10,}`], // Hugging Face
  ['r8_', String.raw`r8_[A-Za-z0-9]{10,}`], // Replicate
  ['npm_', String.raw`npm_[A-Za-z0-9]{10,}`], // npm
  ['pypi-', String.raw`pypi-[A-Za-z0-9_-]{10,}`], // PyPI
  ['dop_v1_', String.raw`dop_v1_[A-Za-z0-9]{10,}`], // DigitalOcean PAT
  ['doo_v1_', String.raw`doo_v1_[A-Za-z0-9]{10,}`], // DigitalOcean OAuth
  // AgentMail (`am_` / `am_org_`). Gateway: 20+ like current Hermes, not 10: an opaque 10-char
  // floor also matches ordinary identifiers such as `am_understanding` (Hermes #10983).
  ['am_', String.raw`am_(?:org_)?[A-Za-z0-9]{20,}`],
  ['sk_', String.raw`sk_[A-Za-z0-9_]{10,}`], // ElevenLabs (underscore, unlike OpenAI's dash)
  ['tvly-', String.raw`tvly-[A-Za-z0-9]{10,}`], // Tavily
  ['exa_', String.raw`exa_[A-Za-z0-9]{10,}`], // Exa
  ['gsk_', String.raw`gsk_[A-Za-z0-9]{10,}`], // Groq
  ['syt_', String.raw`syt_[A-Za-z0-9]{10,}`], // Matrix
  ['retaindb_', String.raw`retaindb_[A-Za-z0-9]{10,}`], // RetainDB
  ['hsk-', String.raw`hsk-[A-Za-z0-9]{10,}`], // Hindsight
  ['mem0_', String.raw`mem0_[A-Za-z0-9]{10,}`], // Mem0
  ['brv_', String.raw`brv_[A-Za-z0-9]{10,}`], // ByteRover
  ['xai-', String.raw`xai-[A-Za-z0-9]{30,}`], // xAI
  ['ntn_', String.raw`ntn_[A-Za-z0-9]{10,}`], // Notion
  ['fw_', String.raw`fw_[A-Za-z0-9]{30,}`], // Fireworks
];
const PREFIX_LITERALS: readonly string[] = [...new Set(PREFIX_PATTERNS.map(([literal]) => literal))];

// Leading word boundary: a preceding token character means the "prefix" is the middle of some
// other identifier (`mysk-…`, `task_…`), not a key. Exception, as in Hermes: JSON-escaped text
// (JSONL transcripts, `ensure_ascii` bodies) puts a key right after `\n` or `\u00e9`, whose last
// byte is alphanumeric; without these reliefs a key on the second line of an escaped string leaks.
const TOKEN_LEAD = String.raw`(?:(?<![A-Za-z0-9_-])|(?<=\\[A-Za-z])|(?<=\\u[0-9A-Fa-f]{4})|(?<=\\x[0-9A-Fa-f]{2}))`;
const PREFIX_RE = new RegExp(
  `${TOKEN_LEAD}(?:${PREFIX_PATTERNS.map(([, pattern]) => pattern).join('|')})(?![A-Za-z0-9_-])`,
  'g',
);

function hasKnownPrefix(text: string): boolean {
  for (const literal of PREFIX_LITERALS) if (text.includes(literal)) return true;
  return false;
}

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
function maskMaybeQuoted(name: string, raw: string, strength: KeywordStrength): string {
  const q = raw.charAt(0);
  const quoted = raw.length >= 2 && (q === '"' || q === "'") && raw.endsWith(q);
  const inner = quoted ? raw.slice(1, -1) : raw;
  if (!shouldMaskValue(name, inner, strength)) return raw;
  const masked = maskValue(inner);
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
const CFG_ANCHORED_RE = new RegExp(
  String.raw`^([ \t]*(?:export[ \t]+)?)([A-Za-z0-9_.-]+)(=(?!=))` + CFG_VALUE,
  'gm',
);

function redactEnvAssignments(text: string): string {
  if (!text.includes('=')) return text;
  // Uppercase names run even when the text holds a URL: they never collide with (lowercase) query
  // parameters, and an env dump is exactly where `DATABASE_URL=…` sits beside `API_KEY=…`.
  text = text.replace(ENV_UPPER_RE, (whole, name: string, sep: string, raw: string) => {
    const masked = maskMaybeQuoted(name, raw, keywordStrength(name, true));
    return masked === raw ? whole : name + sep + masked;
  });
  // The lowercase forms would match `token=`/`key=` query parameters, and web-URL query values are
  // deliberately passed through (OAuth callbacks and magic links must round-trip), so they are off
  // for any text holding a URL, as in Hermes.
  if (!text.includes('://') && ANY_KEYWORD_RE.test(text)) {
    text = text.replace(CFG_DOTTED_RE, (whole, name: string, sep: string, raw: string) => {
      const masked = maskMaybeQuoted(name, raw, keywordStrength(name, true));
      return masked === raw ? whole : name + sep + masked;
    });
    text = text.replace(CFG_ANCHORED_RE, (whole, lead: string, name: string, sep: string, raw: string) => {
      const masked = maskMaybeQuoted(name, raw, keywordStrength(name, true));
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
const JSON_FIELD_NAME_RE = new RegExp(`^(?:${JSON_KEY_NAMES})$`, 'i');
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
function maskJsonFieldValue(key: string, value: string): string {
  // `token` alone is weak (`"token": "4096"` is a limit); the rest of the list is credential-only.
  const strength: KeywordStrength = key.toLowerCase() === 'token' ? 'weak' : 'strong';
  if (!shouldMaskValue(key, value, strength)) return value;
  return maskValue(value);
}

function redactJsonFields(text: string): string {
  if (!text.includes('"') || !text.includes(':')) return text;
  const sub = (whole: string, head: string, key: string, value: string, tail: string): string => {
    const masked = maskJsonFieldValue(key, value);
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
const YAML_ASSIGN_RE = /^([ \t]*(?:-[ \t]+)?)([A-Za-z0-9_.-]+)(:[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'#][^\s"']*)/gm;

function redactYaml(text: string): string {
  if (!text.includes(':') || !ANY_KEYWORD_RE.test(text)) return text;
  return text.replace(YAML_ASSIGN_RE, (whole, lead: string, name: string, sep: string, raw: string) => {
    // Bare `auth` is not a YAML keyword: `Authorization:` is pass 5's (which keeps the scheme)
    // and `author:` is not a secret. `auth_token` still counts via `token`.
    const masked = maskMaybeQuoted(name, raw, keywordStrength(name, false));
    return masked === raw ? whole : lead + name + sep + masked;
  });
}

// ---------------------------------------------------------------------------------------------
// Passes 5-7: headers and Telegram tokens
// ---------------------------------------------------------------------------------------------

// Header name and scheme word are kept (`Authorization: Bearer ***`) so the output still says
// what kind of credential it was. The credential class excludes quotes: swallowing the closing
// quote of `-H "Authorization: Bearer x"` would turn value corruption into syntax corruption.
// Gateway: an optional (possibly escaped) quote between name and colon also covers the JSON/dict
// form (`"Authorization": "Bearer x"`, `\"Authorization\": \"Bearer x\"`), which Hermes' pattern
// does not reach; the credential class then also stops at a backslash.
// `[ \t]` rather than `\s` so a bare `Authorization:` at a line end never masks the next line.
const AUTH_HEADER_RE =
  /(?<![A-Za-z0-9_])((?:Proxy-)?Authorization(?:\\?["'])?[ \t]*:[ \t]*(?:\\?["'])?)([A-Za-z][\w.+-]*[ \t]+)?([^\s"'\\]+)/gi;
const AUTH_GATE_RE = /authorization/i;

// Single opaque value, no scheme word: an echoed `curl -H 'x-api-key: …'` would otherwise leak any
// key without a vendor prefix. The quoted dict form (`"x-api-key": "…"`) is accepted for the
// hyphenated header names only: a quoted `"apiKey":` is a JSON field, which is pass 3's to judge
// (and to skip in codeFile mode, where it is usually a fixture).
const SECRET_HEADER_RE =
  /(?<![A-Za-z0-9_-])((?:(?:x-api-key|x-goog-api-key|api-key|x-api-token|x-auth-token|x-access-token)(?:\\?["'])?|apikey)[ \t]*:[ \t]*(?:\\?["'])?)([^\s"'\\]+)/gi;
const SECRET_HEADER_GATE_RE = /api-?key|-token/i;

// `bot<id>:<secret>` / `<id>:<secret>`. The lookbehind starts each attempt at the beginning of a
// digit run: without it a long digit blob retries `\d{8,}` from every digit (Hermes found this
// quadratic on a 2 MB diff).
const TELEGRAM_RE = /(?<!\d)(bot)?(\d{8,}):([-A-Za-z0-9_]{30,})/g;

// ---------------------------------------------------------------------------------------------
// Pass 8: PEM private keys
// ---------------------------------------------------------------------------------------------

const PEM_BEGIN_RE = /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----/g;
const PEM_END_RE = /-----END[A-Z ]{0,40}PRIVATE KEY-----/g;
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
function redactPrivateKeys(text: string): string {
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
const DB_CONNSTR_RE =
  /(?<![A-Za-z0-9])((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]{0,256}:)([^@\s]{1,512})(@)/gi;
// A template placeholder, not a literal: f"postgresql://{user}:{pw}@{host}" or JS `${pw}`.
const TEMPLATE_PLACEHOLDER_RE = /^\$?\{[^{}]*\}$/;

// `https://TOKEN@github.com/…` (git remote set-url with a bare PAT). Round-trip URLs carry tokens in
// the query string, never as bare userinfo, so this cannot break an OAuth flow. `user:pass@` is
// deliberately passed through (the class forbids `:`); 8+ chars skips short usernames (`git@`).
// The class forbids `/?#` so an `@` in a path or query (`?email=a@b.com`) never counts.
const URL_BARE_TOKEN_RE = /(?<![A-Za-z0-9])((?:https?|wss?|git|ssh|ftps?|sftp):\/\/)([^\s:@/?#]{8,})(?=@)/gi;

// ---------------------------------------------------------------------------------------------
// Passes 11-13: JWTs, form bodies, phone numbers
// ---------------------------------------------------------------------------------------------

// Header, payload and signature (1-3 segments). Gateway: a leading boundary, so a window that
// happens to spell `eyJ…` inside a larger base64 blob (an image, a key) is not cut out of it.
const JWT_RE = new RegExp(
  String.raw`(?:(?<![A-Za-z0-9+/_-])|(?<=\\[A-Za-z])|(?<=\\u[0-9A-Fa-f]{4}))eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}`,
  'g',
);

// Only when the ENTIRE text is `k=v&k=v`: query strings inside prose or URLs are passed through.
const FORM_BODY_RE = /^[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*)+$/;
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
  'secret',
  'private_key',
  'authorization',
  'key',
]);

function redactFormBody(text: string): string {
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
  if (redacted === body) return text;
  const start = text.indexOf(body);
  return text.slice(0, start) + redacted + text.slice(start + body.length);
}

// E.164: `+`, a non-zero digit, 7-15 digits in all. The boundaries reject hex strings, longer digit
// runs and arithmetic (`1+2345678`).
const PHONE_RE = /(?<![\w+])(\+[1-9]\d{6,14})(?![A-Za-z0-9])/g;

function maskPhone(phone: string): string {
  const keep = phone.length <= 8 ? 2 : 4;
  return `${phone.slice(0, keep)}****${phone.slice(-keep)}`;
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/** Redact secrets from one string. Always on: the gateway has no opt-out. */
export function redact(text: string, options: RedactOptions = {}): string {
  if (typeof text !== 'string' || text === '') return text;
  const codeFile = options.codeFile === true;

  // 1. Known key prefixes.
  if (hasKnownPrefix(text)) text = text.replace(PREFIX_RE, (token) => maskToken(token));

  // 2-4. Assignment passes; skipped for code, where they mostly hit fixtures and limits.
  if (!codeFile) {
    text = redactEnvAssignments(text);
    text = redactJsonFields(text);
    text = redactYaml(text);
  }

  // 5. Authorization / Proxy-Authorization.
  if (AUTH_GATE_RE.test(text)) {
    text = text.replace(
      AUTH_HEADER_RE,
      (_whole, head: string, scheme: string | undefined, credential: string) =>
        head + (scheme ?? '') + maskUnlessMasked(credential),
    );
  }

  if (text.includes(':')) {
    // 6. API-key headers.
    if (SECRET_HEADER_GATE_RE.test(text)) {
      text = text.replace(SECRET_HEADER_RE, (_whole, head: string, value: string) => head + maskUnlessMasked(value));
    }
    // 7. Telegram bot tokens.
    text = text.replace(TELEGRAM_RE, (_whole, bot: string | undefined, id: string) => `${bot ?? ''}${id}:${MASK}`);
  }

  // 8. PEM private key blocks.
  if (text.includes('PRIVATE KEY-----')) text = redactPrivateKeys(text);

  if (text.includes('://')) {
    // 9. Database connection-string passwords.
    text = text.replace(DB_CONNSTR_RE, (whole, head: string, password: string, at: string) => {
      if (codeFile && TEMPLATE_PLACEHOLDER_RE.test(password)) return whole;
      return head + MASK + at;
    });
    // 10. Bare-token userinfo.
    text = text.replace(URL_BARE_TOKEN_RE, (_whole, scheme: string, token: string) => scheme + maskUnlessMasked(token));
  }

  // 11. JWTs.
  if (text.includes('eyJ')) text = text.replace(JWT_RE, (jwt) => maskToken(jwt));

  // 12. Form-urlencoded bodies.
  if (text.includes('&') && text.includes('=')) text = redactFormBody(text);

  // 13. E.164 phone numbers.
  if (text.includes('+')) text = text.replace(PHONE_RE, (phone) => maskPhone(phone));

  return text;
}

/** True when redact() would change the text; used to refuse secret-like memory writes. */
export function containsSecret(text: string): boolean {
  return redact(text) !== text;
}

/**
 * Deep copy of `value` with every string redacted. Arrays and plain objects are rebuilt (keys are
 * kept verbatim, values redacted); anything else (Date, Map, Buffer, class instances, functions) is
 * passed through by reference. Cycles are preserved rather than followed forever.
 *
 * A string held under one of the JSON field names (`apiKey`, `password`, `token`, …) also gets the
 * JSON-field rule (pass 3), outside codeFile mode, so redacting a structure never leaks more than
 * redacting its JSON text would: `{password: "hunter2"}` has no secret shape in the string alone.
 */
export function redactDeep<T>(value: T, options: RedactOptions = {}): T {
  return deepCopy(value, options, new Map(), undefined) as T;
}

function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function deepCopy(value: unknown, options: RedactOptions, seen: Map<object, unknown>, key: string | undefined): unknown {
  if (typeof value === 'string') {
    let out = redact(value, options);
    if (key !== undefined && options.codeFile !== true && JSON_FIELD_NAME_RE.test(key)) {
      out = maskJsonFieldValue(key, out);
    }
    return out;
  }
  if (Array.isArray(value)) {
    const known = seen.get(value);
    if (known !== undefined) return known;
    const out: unknown[] = new Array<unknown>(value.length);
    seen.set(value, out);
    for (let i = 0; i < value.length; i++) {
      if (i in value) out[i] = deepCopy(value[i], options, seen, undefined);
    }
    return out;
  }
  if (isPlainObject(value)) {
    const known = seen.get(value);
    if (known !== undefined) return known;
    const out = Object.create(Object.getPrototypeOf(value) as object | null) as Record<PropertyKey, unknown>;
    seen.set(value, out);
    // Object.keys lists exactly the own enumerable string keys; symbols are never JSON, and the
    // results of tools are JSON, so plain assignment is enough for every key but `__proto__`.
    for (const k of Object.keys(value)) {
      const copied = deepCopy(value[k], options, seen, k);
      if (k === '__proto__') {
        // defineProperty, not assignment: an own `__proto__` key (JSON.parse makes those) must
        // stay data, not rewrite the copy's prototype.
        Object.defineProperty(out, k, { value: copied, enumerable: true, writable: true, configurable: true });
      } else out[k] = copied;
    }
    return out;
  }
  return value;
}
