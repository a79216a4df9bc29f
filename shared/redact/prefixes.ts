// Pass 1 of shared/redact.ts: vendor API keys recognised by their literal prefix.

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
export const PREFIX_RE = new RegExp(
  `${TOKEN_LEAD}(?:${PREFIX_PATTERNS.map(([, pattern]) => pattern).join('|')})(?![A-Za-z0-9_-])`,
  'g',
);

export function hasKnownPrefix(text: string): boolean {
  for (const literal of PREFIX_LITERALS) if (text.includes(literal)) return true;
  return false;
}
