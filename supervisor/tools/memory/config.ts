import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { defaultLimits } from '../../../shared/limits.js';
import { readHermesConfig } from '../../platform/hermes-config.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { DEFAULT_HOST, fromEnv, fromFile, isObject, PRINTABLE, printableUrl, rulesOf, str, type ApiKeySource, type Env, type Json, type RawFields, type Rules } from './honcho-fields.js';
import { sessionName } from './session-name.js';

// Hermes' Honcho configuration, resolved the way Hermes resolves it (Hermes Agent's
// plugins/memory/honcho/client.py), so the gateway talks to the same
// Honcho, workspace and user peer as the Hermes agent:
//
//   file:  $HERMES_HOME/honcho.json -> the default profile's honcho.json -> ~/.honcho/config.json
//          (the first that exists; none -> environment only)
//   host:  HERMES_HONCHO_HOST, else `hermes_<profile>` for a named profile (legacy `hermes.<profile>`
//          host blocks accepted), else the file's `defaultHost`, else `hermes`; the profile is the
//          name of a `<root>/profiles/<name>` HERMES_HOME (hermes_cli/profiles.py get_active_profile_name)
//   keys:  hosts.<host>.<key> (truthy) > root <key> > default
//   base URL, Hermes 0.19: root baseUrl, base_url, then HONCHO_BASE_URL, then config.yaml honcho.base_url;
//          from 0.20.1 (HONCHO_CHANGES honcho_base_url_sources): host block baseUrl, base_url, then the
//          root's endpoint.baseUrl, root baseUrl, base_url, HONCHO_BASE_URL, HONCHO_URL, config.yaml;
//          and a URL with a character outside printable ASCII is dropped (honcho_base_url_printable)
//   env:   HONCHO_API_KEY fills apiKey, HONCHO_BASE_URL (and from 0.20.1 HONCHO_URL) the base URL;
//          HONCHO_ENVIRONMENT is read only without a honcho.json (HonchoClientConfig.from_env). The
//          values come from GatewayConfig.honchoEnv, where $HERMES_HOME/.env wins over the process
//          environment for these names, as in Hermes (platform/environment.ts)
//   apiKey on a local base URL: the placeholder `local` unless the host block (from 0.20.1 also the
//          root, honcho_root_key_on_local) sets a key
//   session: the project directory's Honcho session (resolve_session_name); from 0.21.3 prefixed with
//          the assistant peer under sessionAiPeerPrefix (honcho_session_ai_peer_prefix)
//
// Reads take Hermes' view of the user (settings.readObserver: Hermes' assistant peer while it observes
// others, as session.py _resolve_observer_target). Only the assistant peer the gateway writes as differs
// from Hermes': this adapter writes as `chatgpt`. The user peer is
// `peerName`; Hermes without one derives a per-session peer from its runtime identity, which the
// gateway has no way to reproduce, so a configuration without it is reported as invalid instead of
// guessing (writing conclusions about a peer Hermes never reads would silently split the memory).

const ASSISTANT_PEER = 'chatgpt';
const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const ENVIRONMENT_URLS: Record<string, string> = {
  production: 'https://api.honcho.dev',
  local: 'http://localhost:8000',
};
export const REASONING_LEVELS = ['minimal', 'low', 'medium', 'high', 'max'] as const;
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

interface HonchoIdentity {
  /** The honcho.json host block this gateway reads (`hermes`, `hermes_<profile>`, HERMES_HONCHO_HOST). */
  host: string;
  workspace: string;
  userPeer: string;
  assistantPeer: typeof ASSISTANT_PEER;
  /** The Honcho session Hermes would use for the project directory (client.py resolve_session_name). */
  session: string;
}

export interface HonchoSettings {
  identity: HonchoIdentity;
  /** API root without a version suffix (the SDK adds `/v3`). */
  baseURL: string;
  /** Bearer token; `local` is Hermes' placeholder for self-hosted servers without a configured key. */
  apiKey?: string;
  /** Where the key came from, for diagnostics (never the key itself). */
  apiKeySource: ApiKeySource;
  /** `dialecticReasoningLevel` (default `low`) and whether a caller may override it (`dialecticDynamic`). */
  reasoningLevel: ReasoningLevel;
  reasoningDynamic: boolean;
  /**
   * Whose view of the user the reads take (session.py _resolve_observer_target): Hermes' assistant
   * peer (`aiPeer`, default the host) while it observes others (both observation presets; off only
   * with observation.ai.observeOthers false), else the user peer's own.
   */
  readObserver: string;
  /** Hermes' assistant peer (`aiPeer`, default the host): the author Hermes labels `assistant` in search excerpts. */
  hermesPeer: string;
  /** `contextTokens`: the token budget Hermes gives session.context. */
  contextTokens?: number;
  /** The file the settings came from, or `environment`. */
  source: string;
  warnings: string[];
}

export type HonchoResolution =
  | { status: 'configured'; settings: HonchoSettings }
  | { status: 'not_configured'; reason: string; source: string; warnings: string[] }
  | { status: 'invalid'; reason: string; source: string; warnings: string[] };


/** `hermes` for the default profile, `hermes_<sanitized profile>` otherwise (client.profile_host_key). */
function profileHostKey(profile: string | undefined): string {
  if (!profile || profile === 'default' || profile === 'custom') return DEFAULT_HOST;
  const sanitized = profile.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/^_+|_+$/g, '');
  return `${DEFAULT_HOST}_${sanitized || 'profile'}`;
}

/**
 * The root Hermes keeps its profiles under (hermes_constants.py get_default_hermes_root): ~/.hermes
 * for a HERMES_HOME inside it, the grandparent of a `<root>/profiles/<name>` home elsewhere, else
 * HERMES_HOME itself.
 */
function defaultHermesHome(hermesHome: string, userHome: string): string {
  const native = resolve(userHome, '.hermes');
  const home = resolve(hermesHome);
  const rel = relative(native, home);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return native;
  if (basename(dirname(home)) === 'profiles') return dirname(dirname(home));
  return home;
}

/** The active profile's name (hermes_cli/profiles.py get_active_profile_name): undefined for the default or a custom home. */
function activeProfile(hermesHome: string, userHome: string): string | undefined {
  const home = resolve(hermesHome);
  const root = defaultHermesHome(hermesHome, userHome);
  if (home === root) return undefined;
  const rel = relative(join(root, 'profiles'), home);
  return /^[a-z0-9][a-z0-9_-]{0,63}$/.test(rel) ? rel : undefined;
}

/** The config file Hermes reads (client.resolve_config_path). */
/** The files Hermes reads its Honcho settings from, in order (the first that exists wins). */
function honchoConfigCandidates(hermesHome: string, userHome: string): string[] {
  const local = join(hermesHome, 'honcho.json');
  const fallback = join(defaultHermesHome(hermesHome, userHome), 'honcho.json');
  return [local, ...(resolve(fallback) !== resolve(local) ? [fallback] : []), join(userHome, '.honcho', 'config.json')];
}

function honchoConfigPath(hermesHome: string, userHome: string): string {
  const candidates = honchoConfigCandidates(hermesHome, userHome);
  return candidates.find((p) => existsSync(p)) ?? candidates[candidates.length - 1]!;
}


/** Loopback / private / link-local / CGNAT hosts: Hermes sends the placeholder key `local` there. */
function isLocalBaseUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host === '::1') return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  return /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host);
}

/** config.yaml `honcho.base_url`: fills a base URL honcho.json and the environment left unset. */
function configYamlBaseUrl(hermesHome: string, warnings: string[], configMaxBytes: number): string | undefined {
  const { doc, error } = readHermesConfig(hermesHome, configMaxBytes);
  if (error) warnings.push(error);
  const honcho = doc?.honcho;
  return isObject(honcho) ? str(honcho.base_url) : undefined;
}

/**
 * Hermes' Honcho settings for HERMES_HOME `hermesHome`; `cwd` (the project directory) names the
 * session; `release` is the Hermes whose rules are followed (the newest the gateway knows by default).
 */
export function resolveHonchoConfig(
  hermesHome: string,
  env: Env,
  cwd: string = hermesHome,
  release: HermesRelease = new HermesRelease(undefined),
  /** The largest config.yaml read (`hermesConfigMaxBytes`). */
  configMaxBytes: number = defaultLimits().hermesConfigMaxBytes,
): HonchoResolution {
  const rules = rulesOf(release);
  const userHome = str(env.HOME) ?? homedir();
  const warnings: string[] = [];
  const profileHost = profileHostKey(activeProfile(hermesHome, userHome));
  const path = honchoConfigPath(hermesHome, userHome);
  const raw = readHonchoFile(path, warnings);
  // client.resolve_active_host: only the default profile may opt into the file's defaultHost.
  const host = str(env.HERMES_HONCHO_HOST) ?? (profileHost === DEFAULT_HOST ? (raw && str(String(raw.defaultHost ?? ''))) ?? profileHost : profileHost);
  const fields: RawFields = raw ? fromFile(raw, host, env, rules, warnings) : fromEnv(env, rules, warnings);
  const source = raw ? path : 'environment';

  const lookedAt = `${existsSync(path) ? path : honchoConfigCandidates(hermesHome, userHome).join(', ')}, HONCHO_API_KEY, HONCHO_BASE_URL${rules.baseUrlSources ? ', HONCHO_URL' : ''}`;
  if (!fields.enabled || !(fields.apiKey || fields.baseUrl)) {
    const why = !fields.enabled && fields.enabledExplicit ? `Honcho is disabled (enabled: false in ${source})` : `no Honcho API key or base URL (looked at ${lookedAt})`;
    return { status: 'not_configured', reason: `memory backend not configured: ${why}`, source, warnings };
  }
  const invalid = (reason: string): HonchoResolution => ({ status: 'invalid', reason: `Honcho configuration invalid: ${reason}`, source, warnings });

  const root = apiRoot(fields, hermesHome, rules, warnings, configMaxBytes);
  if ('invalid' in root) return invalid(root.invalid);
  if (!ID_PATTERN.test(fields.workspace) || fields.workspace.length > 512) return invalid(`workspace ${JSON.stringify(fields.workspace)} is not a Honcho id`);
  if (!fields.peerName) {
    return invalid(
      `no user peer: set peerName in ${source === 'environment' ? '$HERMES_HOME/honcho.json' : source} (hosts.${host}.peerName or the root); without it Hermes derives a per-session peer the gateway cannot reproduce`,
    );
  }
  // Hermes' session manager sanitizes peer ids to Honcho's pattern.
  const userPeer = fields.peerName.replace(/[^a-zA-Z0-9_-]/g, '-').slice(0, 512);
  if (userPeer === ASSISTANT_PEER) return invalid(`the user peer cannot be "${ASSISTANT_PEER}", the gateway's assistant peer`);
  return { status: 'configured', settings: settingsOf(fields, { host, userPeer, baseURL: root.baseURL, cwd, rules, source, warnings }) };
}

/** honcho.json at `path` as a JSON object; undefined when there is none, or (with a warning) when it does not parse. */
function readHonchoFile(path: string, warnings: string[]): Json | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
    if (!isObject(parsed)) throw new Error('not a JSON object');
    return parsed;
  } catch (e) {
    // Hermes falls back to the environment (with a warning) when its config does not parse.
    warnings.push(`${path} is unreadable (${(e as Error).message}); using the environment like Hermes does`);
    return undefined;
  }
}

/**
 * The API root (without a version suffix) of the base URL the fields name, config.yaml filling one
 * they left unset (recorded in `fields.baseUrl`), else of their environment; or why it is invalid.
 */
function apiRoot(fields: RawFields, hermesHome: string, rules: Rules, warnings: string[], configMaxBytes: number): { baseURL: string } | { invalid: string } {
  if (!fields.baseUrl) fields.baseUrl = printableUrl(configYamlBaseUrl(hermesHome, warnings, configMaxBytes), rules, warnings);
  if (!fields.baseUrl) {
    const url = ENVIRONMENT_URLS[fields.environment];
    return url ? { baseURL: url } : { invalid: `unknown environment ${JSON.stringify(fields.environment)} (production, local or demo)` };
  }
  // Before 0.20.1 Hermes hands such a URL to the SDK, which refuses it: Honcho is unusable there.
  if (!PRINTABLE.test(fields.baseUrl)) return { invalid: `base URL ${JSON.stringify(fields.baseUrl)} has non-printable characters, which Hermes' Honcho client refuses too (remove them)` };
  const baseURL = fields.baseUrl.replace(/\/v\d+\/*$/, '').replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(baseURL);
  } catch {
    return { invalid: `base URL ${JSON.stringify(fields.baseUrl)} is not a URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { invalid: `base URL must be http(s), got ${parsed.protocol}` };
  return { baseURL };
}

/** The settings of checked fields: the identity, the key sent, the reasoning level, whose view reads take. */
function settingsOf(
  fields: RawFields,
  at: { host: string; userPeer: string; baseURL: string; cwd: string; rules: Rules; source: string; warnings: string[] },
): HonchoSettings {
  const { host, userPeer, baseURL, warnings } = at;
  let reasoningLevel: ReasoningLevel = 'low';
  if (fields.reasoningLevel) {
    if ((REASONING_LEVELS as readonly string[]).includes(fields.reasoningLevel)) reasoningLevel = fields.reasoningLevel as ReasoningLevel;
    else warnings.push(`dialecticReasoningLevel ${JSON.stringify(fields.reasoningLevel)} is not a reasoning level; using low`);
  }
  // Local servers usually run without auth, but the SDK wants a key: Hermes sends `local` unless
  // honcho.json sets one itself (client.py get_honcho_client): the host block's, and from 0.20.1 the
  // root's too (upstream issue #36098: a self-hosted Honcho with auth on refused the placeholder). An
  // environment key is assumed to be the cloud key and is not sent to a local server.
  // Only an explicit base URL counts (an `environment: local` keeps the file's key, as in Hermes).
  const hermesPeer = (fields.aiPeer ?? host).replace(/[^a-zA-Z0-9_-]/g, '-');
  const placeholder = fields.baseUrl !== undefined && isLocalBaseUrl(baseURL) && !fields.explicitKey;
  const apiKey = placeholder ? 'local' : fields.apiKey;
  return {
    identity: { host, workspace: fields.workspace, userPeer, assistantPeer: ASSISTANT_PEER, session: sessionName(fields, host, resolve(at.cwd), at.rules) },
    baseURL,
    ...(apiKey ? { apiKey } : {}),
    apiKeySource: placeholder ? 'placeholder' : fields.apiKeySource,
    reasoningLevel,
    reasoningDynamic: fields.reasoningDynamic,
    readObserver: fields.aiObserveOthers ? hermesPeer : userPeer,
    hermesPeer,
    ...(fields.contextTokens ? { contextTokens: fields.contextTokens } : {}),
    source: at.source,
    warnings,
  };
}
