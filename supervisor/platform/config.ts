import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadLimits, type Limits } from '../../shared/limits.js';
import type { FileAccessMode } from './roots.js';
import { authSettings, type AuthConfig } from './settings/auth.js';
import { browserEnvironment, environmentSnapshot, honchoEnvironment } from './settings/environment-copies.js';
import { graphSettings, hermesInstallSettings, type GraphSettings, type HermesInstallSettings } from './settings/upstreams.js';
import {
  ConfigError,
  defaultJobsDatabase,
  defaultPython,
  expandHome,
  firstExisting,
  hermesHomeOf,
  hermesManagedDirOf,
  isLoopbackHost,
  lspConfig,
  parseFileAccess,
  parseHost,
  parseLogFormat,
  parsePort,
  parseRoots,
  type LogFormat,
  type LspConfig,
} from './settings/values.js';

export { BROWSER_ENV_KEYS, environmentSnapshot, HONCHO_ENV_KEYS, HONCHO_IDENTITY_ENV_KEYS } from './settings/environment-copies.js';
export type { GraphSettings, HermesInstallSettings } from './settings/upstreams.js';
export { ConfigError, DEFAULT_HOST, defaultJobsDatabase, hermesHomeOf, hermesManagedDirOf, isLoopbackHost, LOG_FORMATS, type LogFormat, type LspConfig } from './settings/values.js';

// Everything the gateway reads from its environment, in one place, with the documented defaults
// (docs/configuration.md): loadConfig, from the single settings parsed in settings/.

export interface GatewayConfig extends GraphSettings, HermesInstallSettings {
  host: string;
  port: number;
  /** `$HERMES_HOME`, default `~/.hermes` (a checkout without either: the demo home, supervisor/platform/environment.ts). A missing home is reported by /readyz, never a crash. */
  hermesHome: string;
  /** Where `.hermes.md` is read from (`HERMES_MCP_PROJECT_DIR`), default `$HERMES_HOME`. */
  projectDir: string;
  /** Allowed project roots (`HERMES_MCP_ROOTS`, colon-separated absolute paths), default `~/work`. */
  roots: string[];
  /**
   * How far read_file/write_file/patch/search_files reach (`HERMES_MCP_FILE_ACCESS`): `roots`
   * (default) confines them to `roots`; `hermes` is Hermes' own whole-disk semantics (deny lists only).
   */
  fileAccess: FileAccessMode;
  /**
   * Hermes' kill switch of its file-state guard (`HERMES_DISABLE_FILE_STATE_GUARD=1`, as Hermes'
   * tools/file_state.py reads it): write_file then overwrites files this task has not read.
   */
  fileStateGuardDisabled: boolean;
  limits: Limits;
  /** Components reported by /readyz but not required for 200 (`HERMES_MCP_OPTIONAL_COMPONENTS`). */
  optionalComponents: ReadonlySet<string>;
  logLevel: string;
  /** `HERMES_MCP_LOG_FORMAT`: `json`, `pretty`, or `auto` (default: pretty when stderr, where the log goes, is a terminal). */
  logFormat: LogFormat | 'auto';
  /** Where an owner's terminal starts (`HERMES_MCP_TERMINAL_CWD`), default the first root, else home. */
  terminalCwd: string;
  /** The interpreter execute_code runs (`HERMES_MCP_PYTHON`). */
  python: string;
  /** Force a weaker isolation mode for diagnosis (`HERMES_MCP_ISOLATION`); never a stronger one. */
  isolation?: string;
  /** `HERMES_MCP_RESOURCE_POLICY`: the host resource policy file; when set, direct terminal is refused (work goes through jobs). */
  resourcePolicy?: string;
  /** Private runtime state (terminal cwd/env snapshots, RPC sockets), mode 0700. */
  stateDir: string;
  /** The job database (`HERMES_MCP_JOBS_DATABASE`), default `$HERMES_HOME/gateway-jobs.sqlite3`. */
  jobsDatabase: string;
  /** A delegated cgroup v2 directory for direct limits when systemd is unreachable (`HERMES_MCP_CGROUP_ROOT`). */
  cgroupRoot?: string;
  /**
   * What Hermes' Honcho configuration resolution reads from the environment (supervisor/tools/memory/config.ts):
   * HONCHO_API_KEY, HONCHO_BASE_URL, HONCHO_ENVIRONMENT, HERMES_HONCHO_HOST, and HOME (default: the
   * account's home) for the ~/.hermes and ~/.honcho fallbacks.
   */
  honchoEnv: Readonly<Record<string, string>>;
  /** Which cronjob mutations the host allows (`HERMES_MCP_CRONJOB_MUTATIONS`: off (default), on, or a list). */
  cronjobMutations?: string;
  /**
   * Hermes' timezone (`HERMES_TIMEZONE`, as Hermes reads it): the `TZ` of execute_code scripts, as
   * Hermes exports it to its execute_code child, and the HERMES_TIMEZONE of a Hermes call worker
   * (platform/hermes/environment.ts hermesSettings), where Hermes' own cron code reads it.
   */
  hermesTimezone?: string;
  /**
   * The service user's home (`HOME`, default the account's home): its `.hermes` is where Hermes' installers
   * put Hermes by default (locate.ts), and absolute paths under it read as `~/` to the approval guard.
   */
  userHome: string;
  /**
   * Hermes' managed scope (`HERMES_MANAGED_DIR`, default `/etc/hermes`, used when it is a directory):
   * its config.yaml's `approvals.deny` rules apply beside the user's (supervisor/tools/command-guards/deny-rules.ts).
   */
  hermesManagedDir: string;
  /** The Hermes platform this gateway serves (`HERMES_PLATFORM`, else `HERMES_SESSION_PLATFORM`): picks config.yaml `skills.platform_disabled`. */
  hermesPlatform?: string;
  /** Whether this runs for a Kanban task (`HERMES_KANBAN_TASK` or `HERMES_KANBAN_BOARD` set): Hermes offers `environments: [kanban]` skills then. */
  kanbanContext: boolean;
  /** Where the gateway looks for the helper programs it runs itself: `PATH`, default `/usr/bin:/bin`. */
  helperSearchPath: string;
  /**
   * The environment the gateway was started with, copied once (defined values only): the base every
   * child's scrubbed environment is built from (supervisor/platform/spawning/env-scrub.ts), and what Hermes'
   * "is this variable set" checks read (a skill's required_environment_variables). Nothing else in
   * the gateway reads the environment; loadConfig is the one place that does.
   */
  inheritedEnvironment: Readonly<Record<string, string>>;
  /**
   * The values `$HERMES_HOME/.env` and then the managed scope's `.env` set (the managed one's over
   * the home's), as the gateway's start read them (platform/environment.ts; empty when nothing read
   * them). Hermes loads both over its own process environment (hermes_cli/env_loader.py
   * load_hermes_dotenv, override=True, the managed file last), so what Hermes' config expands
   * `${VAR}` from is inheritedEnvironment under these (hermesExpansionEnvironment).
   */
  hermesDotenv: Readonly<Record<string, string>>;
  /** The read-only LSP tools (supervisor/tools/lsp/). */
  lsp: LspConfig;
  /**
   * `HERMES_MCP_BRIDGE_ENV`: a hermes-mcp-bridge `.env` file (MCP_AUTH_TOKEN, HERMES_ENV_PATH,
   * TASKS_DIR, ...) read by supervisor/tools/agent-tasks/settings.ts. Unset, the agent-task tools answer
   * BRIDGE_NOT_CONFIGURED and the bridge profile is not served.
   */
  bridgeEnvFile?: string;
  /**
   * What Hermes' Camofox browser backend reads from the environment (supervisor/tools/browser/settings.ts):
   * CAMOFOX_URL, CAMOFOX_API_KEY, CAMOFOX_USER_ID, CAMOFOX_SESSION_KEY, HERMES_ALLOW_PRIVATE_URLS.
   */
  browserEnv: Readonly<Record<string, string>>;
  /** Public URL, credentials, OAuth and audit (supervisor/platform/settings/auth.ts). */
  auth: AuthConfig;
}

/**
 * The environment Hermes' own processes have once they loaded their `.env` files: the gateway's
 * (inheritedEnvironment) under `$HERMES_HOME/.env` under the managed scope's `.env`, each loaded
 * with override (hermes_cli/env_loader.py load_hermes_dotenv, _apply_managed_env). What `${VAR}` in
 * Hermes' config.yaml expands from (hermes_cli/config.py load_config reads os.environ).
 */
export function hermesExpansionEnvironment(config: Pick<GatewayConfig, 'inheritedEnvironment' | 'hermesDotenv'>): Readonly<Record<string, string>> {
  return Object.freeze({ ...config.inheritedEnvironment, ...config.hermesDotenv });
}

function parseAuth(env: NodeJS.ProcessEnv, hermesHome: string): AuthConfig {
  try {
    return authSettings(env, hermesHome);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/**
 * The configuration from `env` alone, then `overrides`. The gateway, doctor and hermes-mcp-auth pass
 * the environment supervisor/platform/environment.ts merges (the process environment over `$HERMES_HOME/.env`);
 * nothing else reads it.
 */
export function loadConfig(env: NodeJS.ProcessEnv, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  const host = parseHost(env.HERMES_MCP_HOST);
  const port = parsePort(env.HERMES_MCP_PORT);
  const hermesHome = hermesHomeOf(env);
  const projectDir = resolve(expandHome(env.HERMES_MCP_PROJECT_DIR || hermesHome));
  let limits: Limits;
  try {
    limits = loadLimits(env);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const config: GatewayConfig = {
    host,
    port,
    hermesHome,
    projectDir,
    roots: parseRoots(env.HERMES_MCP_ROOTS),
    fileAccess: parseFileAccess(env.HERMES_MCP_FILE_ACCESS),
    fileStateGuardDisabled: (env.HERMES_DISABLE_FILE_STATE_GUARD ?? '').trim() === '1',
    limits,
    optionalComponents: new Set((env.HERMES_MCP_OPTIONAL_COMPONENTS ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
    logLevel: env.HERMES_MCP_LOG_LEVEL || 'info',
    logFormat: parseLogFormat(env.HERMES_MCP_LOG_FORMAT),
    terminalCwd: resolve(expandHome(env.HERMES_MCP_TERMINAL_CWD || firstExisting(parseRoots(env.HERMES_MCP_ROOTS)) || homedir())),
    python: env.HERMES_MCP_PYTHON || defaultPython(env),
    ...(env.HERMES_MCP_ISOLATION ? { isolation: env.HERMES_MCP_ISOLATION } : {}),
    ...(env.HERMES_MCP_RESOURCE_POLICY ? { resourcePolicy: env.HERMES_MCP_RESOURCE_POLICY } : {}),
    jobsDatabase: defaultJobsDatabase(env),
    ...(env.HERMES_MCP_CGROUP_ROOT ? { cgroupRoot: resolve(env.HERMES_MCP_CGROUP_ROOT) } : {}),
    ...(env.HERMES_MCP_CRONJOB_MUTATIONS !== undefined ? { cronjobMutations: env.HERMES_MCP_CRONJOB_MUTATIONS } : {}),
    ...(env.HERMES_TIMEZONE !== undefined ? { hermesTimezone: env.HERMES_TIMEZONE } : {}),
    honchoEnv: honchoEnvironment(env),
    browserEnv: browserEnvironment(env),
    userHome: env.HOME || homedir(),
    hermesManagedDir: hermesManagedDirOf(env),
    ...(env.HERMES_PLATFORM || env.HERMES_SESSION_PLATFORM ? { hermesPlatform: env.HERMES_PLATFORM || env.HERMES_SESSION_PLATFORM } : {}),
    kanbanContext: Boolean(env.HERMES_KANBAN_TASK || env.HERMES_KANBAN_BOARD),
    helperSearchPath: env.PATH || '/usr/bin:/bin',
    inheritedEnvironment: environmentSnapshot(env),
    hermesDotenv: {},
    lsp: lspConfig(env),
    ...(env.HERMES_MCP_BRIDGE_ENV ? { bridgeEnvFile: resolve(expandHome(env.HERMES_MCP_BRIDGE_ENV)) } : {}),
    ...graphSettings(env),
    ...hermesInstallSettings(env, hermesHome),
    auth: parseAuth(env, hermesHome),
    stateDir: resolve(expandHome(env.HERMES_MCP_STATE_DIR || join(env.XDG_RUNTIME_DIR || tmpdir(), `hermes-mcp-gateway-${process.getuid?.() ?? 'user'}`))),
    ...overrides,
  };
  if (!isLoopbackHost(config.host)) throw new ConfigError(`host ${config.host} is not a loopback address`);
  return config;
}
