// The environment an execute_code child process starts with.
//
// Port of Hermes Agent's `_scrub_child_env` (tools/code_execution_env.py, upstream commit
// 88d1d6206f39), its four rules applied per variable in Hermes' order:
//
//   1. a passthrough name (exact, case-sensitive match) is kept;
//   2. a name whose UPPERCASE form contains a secret substring is dropped;
//   3. a name that starts with a safe prefix (case-sensitive, like Python's `str.startswith`) is kept;
//   4. a name equal to one of the operational HERMES_* names is kept;
//   everything else is dropped.
//
// The order is load-bearing: the secret check (2) runs BEFORE the safe-prefix check (3), so
// `PATH_TOKEN`, `HOME_API_KEY` or `USER_AUTH` are dropped even though they start with a safe
// prefix, and `HERMES_AUTH_TOKEN` is dropped even though it starts with `HERMES_`. Only an
// explicit passthrough (1) can let a secret-looking name through.
//
// Case: the secret check folds case (`github_token` is dropped), the keep checks do not — exactly
// as Hermes: `path`, `home` or `hermes_home` are not safe-prefixed/allowlisted and are dropped.
//
// Rule 5 (Windows OS-essential names) is not ported: the gateway runs on Linux only.
// Rule 6 (injected HERMES_RPC_SOCKET / HERMES_RPC_TOKEN / PYTHONDONTWRITEBYTECODE / PYTHONIOENCODING
// / PYTHONUTF8 / PYTHONPATH / TZ) is the caller's job, after scrubbing: TZ in particular is NOT in
// the keep lists and is dropped here, as in Hermes, which re-injects it from HERMES_TIMEZONE.
//
// Gateway: NODE_EXTRA_CA_CERTS and NODE_OPTIONS are dropped unconditionally, even when named as
// passthrough. They fall outside the keep lists anyway; pinning them out means a misconfigured
// passthrough can never make every `node` a script starts pay the gateway's start-up options
// (`--require` hooks, CA bundle loading).

/** Substrings (matched against the uppercased name) that mark a variable as a secret. */
const SECRET_SUBSTRINGS: readonly string[] = Object.freeze([
  'KEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'CREDENTIAL',
  'PASSWD',
  'AUTH',
  'DSN',
  'WEBHOOK',
  'CREDS',
  'BEARER',
  'APIKEY',
  // Not "PASS": Hermes leaves it out on purpose (BYPASS_CACHE, COMPASS_DIR, PASSENGER_HOST).
]);

/** Case-sensitive name prefixes kept once the secret check has passed. */
const SAFE_ENV_PREFIXES: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LANG',
  'LC_',
  'TERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  'SHELL',
  'LOGNAME',
  'XDG_',
  'PYTHONPATH',
  'VIRTUAL_ENV',
  'CONDA',
]);

/** Operational HERMES_* names kept by exact match; every other HERMES_* name is dropped. */
const HERMES_CHILD_ALLOWED: readonly string[] = Object.freeze([
  'HERMES_HOME',
  'HERMES_PROFILE',
  'HERMES_CONFIG',
  'HERMES_ENV',
]);

/** Gateway: never handed to a child, whatever the passthrough says. */
const ALWAYS_DROPPED: readonly string[] = Object.freeze(['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS']);

const HERMES_ALLOWED_SET: ReadonlySet<string> = new Set(HERMES_CHILD_ALLOWED);
const ALWAYS_DROPPED_SET: ReadonlySet<string> = new Set(ALWAYS_DROPPED);

interface ScrubChildEnvOptions {
  /**
   * Names kept whatever they look like (Hermes: skill-declared or `terminal.env_passthrough`).
   * Exact, case-sensitive names; a listed name absent from `env` is simply not added.
   */
  passthrough?: readonly string[];
}

/** Whether the name looks like it holds a secret (rule 2). */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_SUBSTRINGS.some((s) => upper.includes(s));
}

/** A fresh, scrubbed copy of `env` for an execute_code child. Undefined values are skipped. */
export function scrubChildEnv(env: NodeJS.ProcessEnv, options: ScrubChildEnvOptions = {}): Record<string, string> {
  const passthrough = new Set(options.passthrough ?? []);
  const out: Record<string, string> = {};
  for (const name of Object.keys(env)) {
    const value = env[name];
    if (value === undefined) continue;
    if (ALWAYS_DROPPED_SET.has(name)) continue; // Gateway-only rule, see the header.
    // 1. Passthrough always wins.
    if (passthrough.has(name)) {
      // defineProperty: a passthrough literally named `__proto__` is still an ordinary entry.
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    // 2. Secret-looking names are dropped before any keep rule is consulted.
    if (isSecretEnvName(name)) continue;
    // 3. Safe prefixes, 4. exact operational HERMES_* names.
    if (SAFE_ENV_PREFIXES.some((p) => name.startsWith(p)) || HERMES_ALLOWED_SET.has(name)) {
      out[name] = value;
    }
    // Everything else (including other HERMES_* names) is dropped.
  }
  return out;
}
