import type { HermesRelease } from '../../platform/hermes/release.js';

// The raw Honcho fields Hermes reads (plugins/memory/honcho/client.py): from a honcho.json (host block
// > root > environment > default; HonchoClientConfig.from_global_config) or from the environment
// alone (from_env), under the rules of the Hermes the gateway fronts. config.ts checks them and
// makes the gateway's settings.

export type Env = Readonly<Record<string, string | undefined>>;
export type Json = Record<string, unknown>;
export const DEFAULT_HOST = 'hermes';
/** Where the key came from, for diagnostics (never the key itself). */
export type ApiKeySource = 'host_block' | 'root' | 'environment' | 'placeholder' | 'none';

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

/** The host block honcho.json keeps for `host` (a legacy `hermes.<profile>` block for `hermes_<profile>`). */
function hostBlock(raw: Json, host: string): Json {
  const hosts = isObject(raw.hosts) ? raw.hosts : {};
  const block = hosts[host];
  if (isObject(block) && Object.keys(block).length > 0) return block;
  if (host.startsWith(`${DEFAULT_HOST}_`)) {
    const legacy = hosts[`${DEFAULT_HOST}.${host.slice(DEFAULT_HOST.length + 1)}`];
    if (isObject(legacy)) return legacy;
  }
  return isObject(block) ? block : {};
}

/** The Honcho rules of the Hermes the gateway fronts (HONCHO_CHANGES in platform/hermes/release.ts). */
export interface Rules {
  /** Host-block and `endpoint.baseUrl` base URLs, and HONCHO_URL. */
  baseUrlSources: boolean;
  /** A base URL with a character outside printable ASCII is dropped (client.py _sanitize_url). */
  printableBaseUrl: boolean;
  /** The root apiKey, like the host block's, is sent to a local Honcho. */
  rootKeyOnLocal: boolean;
  /** sessionAiPeerPrefix prefixes the session with the assistant peer. */
  sessionAiPeerPrefix: boolean;
}

export function rulesOf(release: HermesRelease): Rules {
  return {
    baseUrlSources: release.has('honcho_base_url_sources'),
    printableBaseUrl: release.has('honcho_base_url_printable'),
    rootKeyOnLocal: release.has('honcho_root_key_on_local'),
    sessionAiPeerPrefix: release.has('honcho_session_ai_peer_prefix'),
  };
}

export interface RawFields {
  apiKey?: string;
  apiKeySource: ApiKeySource;
  /** honcho.json sets the key itself (the host block; from 0.20.1 also the root): the only key sent to a local Honcho (client.py get_honcho_client). */
  explicitKey: boolean;
  baseUrl?: string;
  workspace: string;
  peerName?: string;
  environment: string;
  enabled: boolean;
  /** `enabled` was set explicitly (host block or root), not derived from a key or URL. */
  enabledExplicit: boolean;
  reasoningLevel?: string;
  reasoningDynamic: boolean;
  contextTokens?: number;
  /** sessionStrategy, sessionPeerPrefix (host > root) and the root `sessions` map (directory -> session name). */
  sessionStrategy: string;
  sessionPeerPrefix: boolean;
  /** sessionAiPeerPrefix (host > root, when set): Hermes 0.21.3 prefixes the session with the assistant peer. */
  sessionAiPeerPrefix: boolean;
  sessions: Record<string, string>;
  aiPeer?: string;
  aiObserveOthers: boolean;
}

/** HONCHO_BASE_URL, then (from 0.20.1) HONCHO_URL, the Honcho SDK's own variable (client.py from_env, from_global_config). */
function envBaseUrl(env: Env, rules: Rules): string | undefined {
  return str(env.HONCHO_BASE_URL) ?? (rules.baseUrlSources ? str(env.HONCHO_URL) : undefined);
}

export const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * `url`, or undefined when it has a character outside printable ASCII (0x20-0x7e): from 0.20.1 Hermes
 * drops such a URL with a warning instead of failing at client construction (client.py _sanitize_url).
 */
export function printableUrl(url: string | undefined, rules: Rules, warnings: string[]): string | undefined {
  if (url === undefined || !rules.printableBaseUrl || PRINTABLE.test(url)) return url;
  warnings.push(`the Honcho base URL ${JSON.stringify(url)} has non-printable characters and is ignored, as Hermes ignores it`);
  return undefined;
}

/**
 * The base URL a honcho.json names. Hermes 0.19: root baseUrl, base_url, then the environment. From
 * 0.20.1 (client.py from_global_config): the host block's baseUrl, base_url, the root's
 * endpoint.baseUrl (the Honcho SDK's own layout; a host block's `endpoint` is not read), root
 * baseUrl, base_url, then the environment.
 */
function fileBaseUrl(raw: Json, block: Json, env: Env, rules: Rules): string | undefined {
  const endpoint = isObject(raw.endpoint) ? str(raw.endpoint.baseUrl) : undefined;
  const own = rules.baseUrlSources ? (str(block.baseUrl) ?? str(block.base_url) ?? endpoint) : undefined;
  return own ?? str(raw.baseUrl) ?? str(raw.base_url) ?? envBaseUrl(env, rules);
}

/** Fields from a honcho.json: host block (truthy) > root > environment > default. */
export function fromFile(raw: Json, host: string, env: Env, rules: Rules, warnings: string[]): RawFields {
  const block = hostBlock(raw, host);
  const pick = (key: string): unknown => block[key] || raw[key];
  const firstSet = (key: string): unknown => (block[key] !== undefined && block[key] !== null ? block[key] : raw[key]);
  const hostKey = str(block.apiKey);
  const rootKey = str(raw.apiKey);
  const envKey = str(env.HONCHO_API_KEY);
  const apiKey = hostKey ?? rootKey ?? envKey;
  const baseUrl = printableUrl(fileBaseUrl(raw, block, env, rules), rules, warnings);
  const enabledSetting = firstSet('enabled');
  const tokens = Number(firstSet('contextTokens'));
  const dynamic = firstSet('dialecticDynamic');
  return {
    ...(apiKey ? { apiKey } : {}),
    apiKeySource: hostKey ? 'host_block' : rootKey ? 'root' : envKey ? 'environment' : 'none',
    explicitKey: Boolean(hostKey || (rules.rootKeyOnLocal && rootKey)),
    ...(baseUrl ? { baseUrl } : {}),
    workspace: str(pick('workspace')) ?? host,
    ...(str(pick('peerName')) ? { peerName: str(pick('peerName'))! } : {}),
    environment: str(pick('environment')) ?? 'production',
    enabled: enabledSetting === undefined || enabledSetting === null ? Boolean(apiKey || baseUrl) : Boolean(enabledSetting),
    enabledExplicit: enabledSetting !== undefined && enabledSetting !== null,
    ...(str(pick('dialecticReasoningLevel')) ? { reasoningLevel: str(pick('dialecticReasoningLevel'))! } : {}),
    reasoningDynamic: dynamic === undefined || dynamic === null ? true : Boolean(dynamic),
    ...(Number.isSafeInteger(tokens) && tokens > 0 ? { contextTokens: tokens } : {}),
    sessionStrategy: str(pick('sessionStrategy')) ?? 'per-directory',
    sessionPeerPrefix: Boolean(firstSet('sessionPeerPrefix')),
    sessionAiPeerPrefix: Boolean(firstSet('sessionAiPeerPrefix')),
    ...(str(pick('aiPeer')) ? { aiPeer: str(pick('aiPeer'))! } : {}),
    aiObserveOthers: aiObservesOthers(block.observation || raw.observation),
    sessions: isObject(raw.sessions) ? Object.fromEntries(Object.entries(raw.sessions).filter((e): e is [string, string] => typeof e[1] === 'string')) : {},
  };
}

/** Environment-only configuration (HonchoClientConfig.from_env): workspace `hermes`, no user peer. */
export function fromEnv(env: Env, rules: Rules, warnings: string[]): RawFields {
  const apiKey = str(env.HONCHO_API_KEY);
  const baseUrl = printableUrl(envBaseUrl(env, rules), rules, warnings);
  return {
    ...(apiKey ? { apiKey } : {}),
    apiKeySource: apiKey ? 'environment' : 'none',
    explicitKey: false,
    ...(baseUrl ? { baseUrl } : {}),
    workspace: DEFAULT_HOST,
    environment: str(env.HONCHO_ENVIRONMENT) ?? 'production',
    enabled: Boolean(apiKey || baseUrl),
    enabledExplicit: false,
    reasoningDynamic: true,
    sessionStrategy: 'per-directory',
    sessionPeerPrefix: false,
    sessionAiPeerPrefix: false,
    sessions: {},
    aiObserveOthers: true,
  };
}

/** client.py _resolve_observation's ai_observe_others: true in both presets unless `observation.ai.observeOthers` says otherwise. */
function aiObservesOthers(observation: unknown): boolean {
  const ai = isObject(observation) && isObject(observation.ai) ? observation.ai : undefined;
  return ai && 'observeOthers' in ai ? Boolean(ai.observeOthers) : true;
}
