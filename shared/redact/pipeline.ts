// redact(): the pass order of shared/redact.ts. The passes themselves live beside this file.

import { redactEnvAssignments } from './assignments.js';
import { redactJsonFields, redactPythonReprFields, redactYaml } from './fields.js';
import { ALREADY_MASKED_RE, FILE_READ_MASKER, MASK, maskUnlessMasked, outputMaskerForOneCall, type Masker } from './mask.js';
import {
  AUTH_GATE_RE,
  AUTH_HEADER_RE,
  DB_CONNSTR_RE,
  JWT_RE,
  maskPhone,
  PHONE_RE,
  redactFormBody,
  redactPrivateKeys,
  SECRET_HEADER_GATE_RE,
  SECRET_HEADER_RE,
  TELEGRAM_RE,
  TEMPLATE_PLACEHOLDER_RE,
  URL_BARE_TOKEN_RE,
  URL_PASSWORD_RE,
} from './patterns.js';
import { redactKnownFormats, redactZhipuKeys } from './prefixes.js';

export interface RedactOptions {
  /**
   * The text is source code or command output that is mostly source. Skips the ENV / config /
   * JSON / YAML assignment passes, which would otherwise mangle legitimate code (`MAX_TOKENS=100`,
   * `"apiKey": "test"` fixtures), exactly as Hermes' `code_file=True` does. Prefix-matched keys,
   * headers, PEM blocks, URL credentials and JWTs are still redacted.
   */
  codeFile?: boolean;
  /**
   * The text is a file's content handed to the agent (read_file, search_files matches): Hermes'
   * `file_read=True`. Implies codeFile (unless secretFile), and every mask is a non-reusable
   * sentinel (`«redacted:ghp_…»`, `«redacted-secret»`) instead of a head/tail form, so a file
   * written back never stores a truncated-looking key in place of the real one (Hermes #35519).
   * Gateway: Hermes keeps the head/tail form for the header, URL and JWT passes in this mode;
   * here they get the sentinel too, for the same reason.
   */
  fileRead?: boolean;
  /**
   * The file is secret-bearing by its path (a shell rc, an `.env`-type file, Hermes' own
   * config.yaml): Hermes' `secret_file=True`. The assignment passes run again (with the
   * sentinel in file-read mode), so an opaque credential without a known prefix is masked too.
   */
  secretFile?: boolean;
}

/** Whether the ENV/config/JSON/YAML assignment passes run in this mode (Hermes: `not code_file`). */
export function runsAssignmentPasses(options: RedactOptions): boolean {
  return options.secretFile === true || (options.codeFile !== true && options.fileRead !== true);
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/** Redact secrets from one string. Always on: the gateway has no opt-out. */
export function redact(text: string, options: RedactOptions = {}): string {
  if (typeof text !== 'string' || text === '') return text;
  const assignments = runsAssignmentPasses(options);
  const clean = cleanTexts[options.fileRead === true ? 'file' : 'output'][assignments ? 'all' : 'code'];
  if (clean.has(text)) return text;
  // The output masker is one per call: it remembers its own masks so later passes mask them again.
  const masker = options.fileRead === true ? FILE_READ_MASKER : outputMaskerForOneCall();
  const out = applyPasses(text, !assignments, masker);
  if (out === text) clean.remember(text);
  return out;
}

/**
 * Texts the passes left unchanged, remembered so the same text is not scanned again: results
 * repeat the same strings (tool_search and tool_describe answer from the frozen catalog, a
 * terminal prints the same lines), and the passes cost ~50 ns a character. Redaction is a pure
 * function of the text and the mode (RedactOptions holds nothing else; an option added there must
 * become part of the key), so a remembered text is clean for good; only clean texts are kept, so
 * the memo never holds a secret. Bounded by characters, entry overhead included; emptied when full.
 */
class CleanTexts {
  private readonly texts = new Set<string>();
  private chars = 0;

  has(text: string): boolean {
    return text.length >= CLEAN_MEMO_MIN_TEXT_CHARS && text.length <= CLEAN_MEMO_MAX_TEXT_CHARS && this.texts.has(text);
  }

  remember(text: string): void {
    if (text.length < CLEAN_MEMO_MIN_TEXT_CHARS || text.length > CLEAN_MEMO_MAX_TEXT_CHARS) return;
    const cost = text.length + CLEAN_MEMO_ENTRY_OVERHEAD_CHARS;
    if (this.chars + cost > CLEAN_MEMO_MAX_CHARS) {
      this.texts.clear();
      this.chars = 0;
    }
    // A copy of its own: a text cut from a larger one (a line split from a 2 MiB file, a slice of
    // stderr) is, in V8, a view that keeps the whole original alive. Concatenating and slicing
    // again leaves a string whose only parent is this copy, one character longer than the text.
    this.texts.add(`\u0000${text}`.slice(1));
    this.chars += cost;
  }
}

/** Shorter texts cost less to scan than to look up. */
const CLEAN_MEMO_MIN_TEXT_CHARS = 64;
/**
 * Longer texts are scanned each time (hashing them costs a pass of its own, and they rarely
 * repeat). Below 16 KiB: V8 hashes longer strings by their length alone.
 */
const CLEAN_MEMO_MAX_TEXT_CHARS = 16 * 1024 - 1;
/** What a Set entry costs beside its characters (hash table slot, string header). */
const CLEAN_MEMO_ENTRY_OVERHEAD_CHARS = 48;
/** At most ~1 M characters of remembered text per mode (per thread: the piscina threads have their own). */
const CLEAN_MEMO_MAX_CHARS = 1024 * 1024;
/** One memo per mode: the mask (output or file read) by whether the assignment passes run. */
const cleanTexts = {
  output: { all: new CleanTexts(), code: new CleanTexts() },
  file: { all: new CleanTexts(), code: new CleanTexts() },
};

function applyPasses(text: string, codeFile: boolean, masker: Masker): string {

  // 1. Known credential formats (formats.ts), also when control or zero-width characters split them
  // (1a, prefixes.ts), then Zhipu `id.secret` keys (1b).
  text = redactKnownFormats(text, masker);
  text = redactZhipuKeys(text, masker);

  // 2-4. Assignment passes; skipped for code, where they mostly hit fixtures and limits.
  if (!codeFile) {
    text = redactEnvAssignments(text, masker);
    text = redactJsonFields(text, masker);
    // 3b. Python mapping reprs (`{'API_KEY': '…'}`), after JSON and before YAML as in newer Hermes.
    text = redactPythonReprFields(text, masker);
    text = redactYaml(text, masker);
  }

  // 5. Authorization / Proxy-Authorization.
  if (AUTH_GATE_RE.test(text)) {
    text = text.replace(
      AUTH_HEADER_RE,
      (_whole, head: string, scheme: string | undefined, credential: string) =>
        head + (scheme ?? '') + maskUnlessMasked(credential, masker),
    );
  }

  if (text.includes(':')) {
    // 6. API-key headers.
    if (SECRET_HEADER_GATE_RE.test(text)) {
      text = text.replace(SECRET_HEADER_RE, (_whole, head: string, value: string) => {
        // A quoted value (`"x-api-key": "…"`, `apiKey: '…'`) ends at its closing quote.
        const end = /["']$/.test(head) ? value.search(/\\?["']/) : -1;
        if (end > 0) return head + maskUnlessMasked(value.slice(0, end), masker) + value.slice(end);
        return head + maskUnlessMasked(value, masker);
      });
    }
    // 7. Telegram bot tokens.
    text = text.replace(TELEGRAM_RE, (_whole, bot: string | undefined, id: string) => `${bot ?? ''}${id}:${MASK}`);
  }

  // 8. PEM private key blocks.
  if (text.includes('PRIVATE KEY')) text = redactPrivateKeys(text);

  if (text.includes('://')) {
    // 9. Database connection-string passwords.
    text = text.replace(DB_CONNSTR_RE, (whole, head: string, password: string, at: string) => {
      // In code, a password that is one `{…}` expression is an f-string placeholder (Hermes #33801).
      if (codeFile && password.startsWith('{') && password.endsWith('}')) return whole;
      return head + MASK + at;
    });
    // 10. Bare-token userinfo.
    text = text.replace(URL_BARE_TOKEN_RE, (_whole, scheme: string, token: string) => scheme + maskUnlessMasked(token, masker));
    // 10b. Passwords in any other `user:password@` URL (basic auth). Placeholders in source are
    // kept, and so is a password pass 1 already masked (its mask says which key it was), and a
    // sentinel pass 1 left as the whole userinfo (`https://«redacted:ghp_…»@host`: its colon is not
    // a user:password separator).
    text = text.replace(URL_PASSWORD_RE, (whole, head: string, password: string) => {
      if (ALREADY_MASKED_RE.test(password) || (codeFile && TEMPLATE_PLACEHOLDER_RE.test(password))) return whole;
      if (head.endsWith('«redacted:') && ALREADY_MASKED_RE.test(`«redacted:${password}`)) return whole;
      return head + MASK;
    });
  }

  // 11. JWTs.
  if (text.includes('eyJ')) text = text.replace(JWT_RE, (jwt) => masker.token(jwt));

  // 12. Form-urlencoded bodies.
  if (text.includes('&') && text.includes('=')) text = redactFormBody(text);

  // 13. E.164 phone numbers.
  if (text.includes('+')) text = text.replace(PHONE_RE, (phone) => maskPhone(phone));

  return text;
}
