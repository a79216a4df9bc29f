// The environment a Hermes process the gateway starts gets (its tool server, the version question,
// a Hermes call worker).

import type { GatewayConfig } from '../config.js';
import { isSecretEnvName } from '../spawning/env-scrub.js';

/**
 * What a Hermes process inherits of the gateway's environment: all of it but what is the gateway's
 * alone — its own settings (every HERMES_MCP_* variable, tokens among them), the bridge's
 * MCP_AUTH_TOKEN, and NODE_OPTIONS (Hermes is Python; its own node children must not pay the
 * gateway's start-up options).
 */
export function hermesInheritance(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('HERMES_MCP_') && name !== 'MCP_AUTH_TOKEN' && name !== 'NODE_OPTIONS'));
}

/** A Hermes process's whole environment: what it inherits (hermesInheritance) plus Hermes' own settings. */
export function hermesEnvironment(inherited: Readonly<Record<string, string>>, hermesHome: string): Record<string, string> {
  // Hermes itself, not a script: it gets the gateway's environment (its provider credentials are
  // there, or in $HERMES_HOME/.env, which it reads) less the gateway's own settings and tokens,
  // with its secret redaction on and its console quiet, and without its lazy installs: Hermes
  // pip-installs a backend's missing packages from PyPI on first use (tools/lazy_deps.py ensure()),
  // and here first use is a remote agent's call, which must not make the host fetch and install
  // code. HERMES_DISABLE_LAZY_INSTALLS=1 seals Hermes' own venv (the backend then answers Hermes'
  // "unavailable, install with hermes tools" error); a durable HERMES_LAZY_INSTALL_TARGET the
  // operator configured still applies, as in Hermes' own sealed images.
  return { ...inherited, HERMES_HOME: hermesHome, HERMES_REDACT_SECRETS: 'true', HERMES_QUIET: '1', HERMES_DISABLE_LAZY_INSTALLS: '1' };
}

/**
 * Hermes' own non-secret settings in the gateway's environment, for a Hermes process that otherwise
 * gets only the workers' scrubbed environment (a Hermes call worker): every HERMES_* variable that
 * is not the gateway's own (HERMES_MCP_*) and that Hermes' scrub would not call a secret
 * (env-scrub.ts, tools/code_execution_env.py `_scrub_child_env`'s secret substrings), and TZ. Among
 * them HERMES_TIMEZONE, which Hermes' clock reads before config.yaml (hermes_time.py), and
 * HERMES_MANAGED_DIR, the administrator's managed scope (hermes_cli/managed_scope.py
 * get_managed_dir), here the directory the gateway itself reads as that scope. Hermes' cron and
 * document code load no .env of their own: what is not in their environment they never see. A
 * provider key (FIRECRAWL_API_KEY, OPENAI_API_KEY, ...) is not among them: a Hermes call worker has
 * no use for one, and Hermes' document extractor would send documents to a hosted OCR with one.
 */
export function hermesSettings(config: Pick<GatewayConfig, 'inheritedEnvironment' | 'hermesTimezone' | 'hermesManagedDir'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.inheritedEnvironment)) {
    if (!(name.startsWith('HERMES_') || name === 'TZ') || name.startsWith('HERMES_MCP_') || isSecretEnvName(name)) continue;
    out[name] = value;
  }
  if (config.hermesTimezone !== undefined) out.HERMES_TIMEZONE = config.hermesTimezone;
  out.HERMES_MANAGED_DIR = config.hermesManagedDir;
  return out;
}
