import { homedir } from 'node:os';

// The parts of the environment loadConfig (supervisor/platform/config.ts) hands on as they are:
// the variables a family's Hermes behaviour reads, copied into GatewayConfig so no family reads the
// process environment itself, and the whole environment the gateway started with.

/**
 * The variables that decide which Honcho, workspace, peer and session Hermes' memory uses. For these,
 * `$HERMES_HOME/.env` wins over the process environment, as in Hermes (environment.ts).
 */
export const HONCHO_IDENTITY_ENV_KEYS = ['HONCHO_API_KEY', 'HONCHO_BASE_URL', 'HONCHO_URL', 'HONCHO_ENVIRONMENT', 'HERMES_HONCHO_HOST'] as const;
/** The environment variables Hermes' Honcho resolution reads (GatewayConfig.honchoEnv carries them to tools/memory/config.ts). */
export const HONCHO_ENV_KEYS = [...HONCHO_IDENTITY_ENV_KEYS, 'HOME'] as const;
/** What Hermes reads from the environment for Camofox and its private-URL opt-out (GatewayConfig.browserEnv, tools/browser/settings.ts). */
export const BROWSER_ENV_KEYS = ['CAMOFOX_URL', 'CAMOFOX_API_KEY', 'CAMOFOX_USER_ID', 'CAMOFOX_SESSION_KEY', 'HERMES_ALLOW_PRIVATE_URLS'] as const;

/** The Honcho-related variables, copied so the memory adapter never reads the process environment itself. */
export function honchoEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = { HOME: env.HOME || homedir() };
  for (const key of HONCHO_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** The browser-related variables, copied so the browser adapter never reads the process environment itself. */
export function browserEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of BROWSER_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** A frozen copy of `env` without its undefined entries (the shape of `inheritedEnvironment`). */
export function environmentSnapshot(env: NodeJS.ProcessEnv): Readonly<Record<string, string>> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // defineProperty: a variable literally named `__proto__` is still an ordinary entry.
    if (value !== undefined) Object.defineProperty(copy, name, { value, enumerable: true });
  }
  return Object.freeze(copy);
}
