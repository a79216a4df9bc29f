import { join } from 'node:path';
import type { GatewayConfig } from '../../platform/config.js';
import { readHermesConfig } from '../../platform/hermes-config.js';

// The browser backend's settings, resolved once at startup the way Hermes' tools/browser_camofox.py
// and tools/browser_tool.py resolve theirs: the Camofox address and key from the environment, the
// identity, timeouts and URL/evaluate policy from Hermes' config.yaml (`browser.*`), with the
// gateway's limits as the defaults. A change needs a gateway restart, like the rest of the catalog.

/** Camofox' own default port on loopback (its server.js listens on 9377). */
export const DEFAULT_CAMOFOX_URL = 'http://127.0.0.1:9377';

/** Hermes floors a configured browser.command_timeout at 5 s, so a typo cannot make every call fail at once. */
const COMMAND_TIMEOUT_FLOOR_SECONDS = 5;

/**
 * Which Camofox user (browser context, i.e. cookie jar and profile) the gateway's owners browse as,
 * chosen as Hermes chooses it (tools/browser_camofox.py `_get_session`):
 * - `override`: CAMOFOX_USER_ID / `browser.camofox.user_id`, shared with whatever else uses it;
 * - `managed`: `browser.camofox.managed_persistence: true`, the stable profile-derived user Hermes
 *   itself uses, so the gateway and Hermes share one persistent profile;
 * - `ephemeral`: Hermes' default, a fresh random user per task (here: per owner).
 */
export type CamofoxIdentityMode =
  | { mode: 'override'; userId: string; sessionKey?: string }
  | { mode: 'managed'; stateDir: string }
  | { mode: 'ephemeral' };

export interface BrowserSettings {
  /** CAMOFOX_URL without its trailing slash. */
  baseUrl: string;
  /** CAMOFOX_API_KEY, sent as `Authorization: Bearer` (Camofox' access key also works as its API key). */
  apiKey?: string;
  identity: CamofoxIdentityMode;
  /** Loopback, private, link-local and CGNAT targets allowed (HERMES_ALLOW_PRIVATE_URLS, security./browser.allow_private_urls). */
  allowPrivateUrls: boolean;
  /**
   * browser_console expressions may use cookies, storage, clipboard, network and form values:
   * `browser.allow_unsafe_evaluate: true`, or `browser.restrict_evaluate` set to false. Hermes 0.19
   * restricts only when `restrict_evaluate` is true; the gateway restricts unless the host says not to.
   */
  allowUnsafeEvaluate: boolean;
  commandTimeoutMs: number;
  navigateTimeoutMs: number;
  healthTimeoutMs: number;
  snapshotMaxChars: number;
  urlMaxChars: number;
  typeMaxChars: number;
  expressionMaxChars: number;
  questionMaxChars: number;
  /** Where browser_vision saves its screenshots: `$HERMES_HOME/browser_screenshots`, as Hermes. */
  screenshotDir: string;
  /** config.yaml problems that fell back to a default (logged at startup). */
  warnings: string[];
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Hermes' is_truthy_value: booleans, and the strings 1/true/yes/on. */
function truthy(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return typeof v === 'string' && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** HERMES_ALLOW_PRIVATE_URLS wins when it says yes or no; else security.allow_private_urls, then the legacy browser key (tools/url_safety.py). */
function allowPrivate(env: Readonly<Record<string, string>>, doc: Record<string, unknown>): boolean {
  const flag = (env.HERMES_ALLOW_PRIVATE_URLS ?? '').trim().toLowerCase();
  if (['true', '1', 'yes'].includes(flag)) return true;
  if (['false', '0', 'no'].includes(flag)) return false;
  return truthy(record(doc.security).allow_private_urls) || truthy(record(doc.browser).allow_private_urls);
}

export function resolveBrowserSettings(config: GatewayConfig): BrowserSettings {
  const env = config.browserEnv;
  const { doc = {}, error } = readHermesConfig(config.hermesHome, config.limits.hermesConfigMaxBytes);
  const warnings = error ? [`${error}; using the browser defaults`] : [];
  const browser = record(doc.browser);
  const camofox = record(browser.camofox);
  const limits = config.limits;

  let commandTimeoutSeconds = limits.browserCommandTimeoutSeconds;
  if (browser.command_timeout !== undefined && browser.command_timeout !== null) {
    const n = Number(browser.command_timeout);
    if (Number.isFinite(n)) commandTimeoutSeconds = Math.max(Math.trunc(n), COMMAND_TIMEOUT_FLOOR_SECONDS);
    else warnings.push(`browser.command_timeout ${JSON.stringify(browser.command_timeout)} is not a number; using ${commandTimeoutSeconds} s`);
  }

  const userId = text(env.CAMOFOX_USER_ID) || text(camofox.user_id);
  let identity: CamofoxIdentityMode;
  if (userId) {
    const sessionKey = text(env.CAMOFOX_SESSION_KEY) || text(camofox.session_key);
    identity = { mode: 'override', userId, ...(sessionKey ? { sessionKey } : {}) };
  } else if (truthy(camofox.managed_persistence)) {
    identity = { mode: 'managed', stateDir: join(config.hermesHome, 'browser_auth', 'camofox') };
  } else {
    identity = { mode: 'ephemeral' };
  }

  const apiKey = text(env.CAMOFOX_API_KEY);
  return {
    baseUrl: (text(env.CAMOFOX_URL) || DEFAULT_CAMOFOX_URL).replace(/\/+$/, ''),
    ...(apiKey ? { apiKey } : {}),
    identity,
    allowPrivateUrls: allowPrivate(env, doc),
    allowUnsafeEvaluate: truthy(browser.allow_unsafe_evaluate) || (browser.restrict_evaluate !== undefined && browser.restrict_evaluate !== null && !truthy(browser.restrict_evaluate)),
    commandTimeoutMs: commandTimeoutSeconds * 1000,
    // Hermes gives a navigation at least 60 s (a cold page load), never less than a command.
    navigateTimeoutMs: Math.max(limits.browserNavigateTimeoutSeconds, commandTimeoutSeconds) * 1000,
    healthTimeoutMs: limits.browserHealthTimeoutSeconds * 1000,
    snapshotMaxChars: limits.browserSnapshotMaxChars,
    urlMaxChars: limits.browserUrlMaxChars,
    typeMaxChars: limits.browserTypeMaxChars,
    expressionMaxChars: limits.browserExpressionMaxChars,
    questionMaxChars: limits.browserQuestionMaxChars,
    screenshotDir: join(config.hermesHome, 'browser_screenshots'),
    warnings,
  };
}
