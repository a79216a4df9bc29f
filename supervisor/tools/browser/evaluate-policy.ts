import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { classifyAddress } from './url-policy.js';

// What a browser_console expression may do, checked before it reaches Camofox' /evaluate. Hermes
// gates expressions on the names of sensitive page primitives (cookies, web storage, IndexedDB,
// Cache Storage, clipboard/credentials/service worker, network requests and beacons, form values)
// when `browser.restrict_evaluate: true`; the gateway does so unless `browser.restrict_evaluate:
// false` or `browser.allow_unsafe_evaluate: true` (its caller is remote). The check is on
// spellings, also inside string literals (`document["coo" + "kie"]`), so it stops casual
// exfiltration, not a determined page script. An http(s) literal aimed at a private or metadata address is refused as navigation is.

const RISKY: ReadonlyArray<[RegExp, string]> = [
  [/\bdocument\s*\.\s*cookie\b/i, 'document.cookie'],
  [/\b(?:localStorage|sessionStorage)\b/i, 'web storage'],
  [/\bindexedDB\b/i, 'IndexedDB'],
  [/\bcaches\s*\.\s*(?:open|match|keys)\b/i, 'Cache Storage'],
  [/\bnavigator\s*\.\s*(?:clipboard|credentials|serviceWorker)\b/i, 'navigator sensitive API'],
  [/\b(?:fetch|XMLHttpRequest|WebSocket|EventSource)\s*\(/i, 'network request'],
  [/\bnavigator\s*\.\s*sendBeacon\s*\(/i, 'network beacon'],
  [/\bdocument\s*\.\s*forms\b[\s\S]*\bvalue\b/i, 'form value extraction'],
  [/\bquerySelector(?:All)?\s*\([^)]*(?:input|textarea|password)[^)]*\)[\s\S]*\bvalue\b/i, 'form value extraction'],
];

const TOKENS: ReadonlyArray<[string, string]> = [
  ['cookie', 'document.cookie'], ['localStorage', 'web storage'], ['sessionStorage', 'web storage'], ['indexedDB', 'IndexedDB'],
  ['caches', 'Cache Storage'], ['clipboard', 'navigator sensitive API'], ['credentials', 'navigator sensitive API'],
  ['serviceWorker', 'navigator sensitive API'], ['fetch', 'network request'], ['XMLHttpRequest', 'network request'],
  ['WebSocket', 'network request'], ['EventSource', 'network request'], ['sendBeacon', 'network beacon'],
];

const STRING_LITERAL = /'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`/g;
const URL_LITERAL = /https?:\/\/[^\s'"`)\]<>]+/gi;

/** A JS string literal's content with \xNN and \uNNNN escapes decoded (best effort, not a parser). */
function decodeLiteral(literal: string): string {
  return literal
    .slice(1, -1)
    .replace(/\\x([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\(.)/g, '$1');
}

/** Why `expression` is refused under Hermes' default evaluate policy, or null. */
export function riskyExpressionReason(expression: string): string | null {
  for (const [pattern, reason] of RISKY) if (pattern.test(expression)) return reason;
  const literals = (expression.match(STRING_LITERAL) ?? []).map(decodeLiteral).join('').toLowerCase();
  for (const [token, reason] of TOKENS) {
    if (new RegExp(`\\b${token}\\b`, 'i').test(expression) || literals.includes(token.toLowerCase())) return reason;
  }
  return null;
}

export function checkExpression(expression: string, options: { allowUnsafeEvaluate: boolean; allowPrivateUrls: boolean }): void {
  // Hermes' order and words: the sensitive-primitive policy first (tools/browser_tool.py
  // _enforce_browser_eval_policy), then the URL literals (_browser_eval).
  const reason = options.allowUnsafeEvaluate ? null : riskyExpressionReason(expression);
  if (reason) {
    throw new GatewayError(
      ErrorCode.BROWSER_EVALUATE_BLOCKED,
      `Blocked: browser_console(expression=...) tried to use sensitive browser JavaScript primitive (${reason}) while browser.restrict_evaluate is enabled. Use browser_snapshot/browser_get_images/browser_console without expression for normal inspection, or set browser.restrict_evaluate: false in config.yaml to allow programmatic evaluation.`,
      { reason: 'sensitive_primitive', primitive: reason },
    );
  }
  for (const literal of expression.match(URL_LITERAL) ?? []) {
    const candidate = literal.replace(/[.,;]+$/, '');
    let host: string;
    try {
      host = new URL(candidate).hostname;
    } catch {
      continue;
    }
    const kind = classifyAddress(host) ?? (host === 'localhost' || host.endsWith('.localhost') ? 'private' : null);
    if (kind === 'metadata' || (kind === 'private' && !options.allowPrivateUrls)) {
      throw new GatewayError(
        ErrorCode.BROWSER_EVALUATE_BLOCKED,
        `Blocked: JavaScript expression targets a private or internal address (${candidate}). Reading internal endpoints via browser_console is not permitted in this browser mode.`,
        { reason: 'private_address' },
      );
    }
  }
}
