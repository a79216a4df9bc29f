import type { HermesToolResult } from '../../../shared/worker-protocol/hermes-tools.js';
import type { ProbeResult } from '../../platform/health/readiness.js';
import { isObject, resultValue, type ToolServerCall } from './tools.js';

// /readyz `web_provider`: whether Hermes' web tools really work, learned once at startup by one
// real web_search and one real web_extract. Hermes advertises both as soon as a web backend is
// selected in config.yaml, even before the provider's credentials work (a managed Firecrawl backend
// before `hermes auth add nous`), and a provider failure comes back as a normal result with the
// error inside it ({"success": false, "error": ...}, or a per-URL "error" in web_extract's
// results) — so a tool that answered is not yet a provider that works. Provider or auth changes
// need a gateway restart, like the catalog: readiness and the schemas stay as they were found.
//
// Hermes 0.22 also retries a failed configured backend through a free keyless tier of third-party
// services (tools/web_tools_rescue.py _rescue_search, _rescue_extract) and then answers a success
// marked `rescued_from` (web_search's `data`, each of web_extract's `results[].metadata`). The
// gateway's tool server runs with that rescue off (managed-overlay.ts), and a rescued answer still
// counts as the configured provider failing: it is not the backend the operator configured.

/** Small and stable: a query any provider answers; the page is the deployment's (HERMES_MCP_WEB_SMOKE_URL). */
const SMOKE_SEARCH = { query: 'Nous Research Hermes Agent', limit: 1 };

const ACTION =
  "configure Hermes' web backend (config.yaml web.backend, e.g. firecrawl with use_gateway: true after `hermes auth add nous --type oauth --no-browser`, or a provider API key), check it with `hermes tools`, then restart the gateway (a web_extract refused as private or unresolvable is about the smoke page: set HERMES_MCP_WEB_SMOKE_URL to one Hermes can read); or set HERMES_MCP_OPTIONAL_COMPONENTS=web_provider to run without the web tools";

export type WebCheck = { tool: 'web_search' | 'web_extract'; ok: true } | { tool: 'web_search' | 'web_extract'; ok: false; reason: string };

/** Both smoke calls, one after the other (each within its own budget), the extract on `pageUrl`; never throws. */
export async function smokeWeb(call: ToolServerCall, pageUrl: string): Promise<WebCheck[]> {
  const checks: WebCheck[] = [];
  for (const [tool, args] of [['web_search', SMOKE_SEARCH], ['web_extract', { urls: [pageUrl] }]] as const) {
    try {
      const reason = providerError(await call(tool, { ...args }, { name: 'hermesToolsWebSmokeTimeoutSeconds' }));
      checks.push(reason ? { tool, ok: false, reason } : { tool, ok: true });
    } catch (e) {
      checks.push({ tool, ok: false, reason: (e as Error).message });
    }
  }
  return checks;
}

export function webProbe(checks: WebCheck[]): ProbeResult {
  const failed = checks.filter((c): c is Extract<WebCheck, { ok: false }> => !c.ok);
  const details = Object.fromEntries(checks.map((c) => [c.tool, c.ok ? 'ok' : c.reason]));
  if (failed.length === 0) return { ready: true, status: 'ok', details };
  return { ready: false, status: 'error', reason: failed.map((c) => `${c.tool}: ${c.reason}`).join('; '), action: ACTION, details };
}

export function webNotOffered(missing: readonly string[]): ProbeResult {
  return { ready: false, status: 'missing', reason: `Hermes' tool server does not offer ${missing.join(' and ')}: no web backend is selected`, action: ACTION };
}

/**
 * The provider error a Hermes web result carries, if any: an error result; an answer that is not
 * Hermes' JSON object; or, anywhere inside it, `success: false`, a non-empty `error`, or a
 * `rescued_from` (served by Hermes' keyless free tier instead of the configured backend).
 */
export function providerError(result: HermesToolResult): string | undefined {
  const text = result.content.map((b) => (typeof b.text === 'string' ? b.text : '')).join(' ').trim();
  if (result.isError) return `the tool answered with an error: ${text.slice(0, 300) || '(no text)'}`;
  const { value } = resultValue(result);
  if (!value) return `the answer is not a Hermes JSON result: ${text.slice(0, 300) || '(empty)'}`;
  return nestedError(value, 0);
}

function nestedError(value: unknown, depth: number): string | undefined {
  if (depth > 6) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = nestedError(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const error = value.error;
  if (typeof error === 'string' && error.trim() !== '') return error.slice(0, 300);
  if (isObject(error) || (Array.isArray(error) && error.length > 0)) return JSON.stringify(error).slice(0, 300);
  if (value.success === false) return 'the provider answered success: false';
  if (typeof value.rescued_from === 'string' && value.rescued_from.trim() !== '') {
    const why = typeof value.backend_error === 'string' && value.backend_error.trim() !== '' ? `: ${value.backend_error.slice(0, 300)}` : '';
    return `the configured backend ${value.rescued_from} failed; Hermes served the answer from its keyless free tier instead${why}`;
  }
  for (const child of Object.values(value)) {
    const found = nestedError(child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
