// The environment a Hermes process the gateway starts gets (its tool server, the version question).

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
