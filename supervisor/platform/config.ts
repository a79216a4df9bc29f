import { existsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { loadLimits, type Limits } from '../../shared/limits.js';
import { FILE_ACCESS_MODES, type FileAccessMode } from './roots.js';
import { usableVersion } from './hermes/release.js';
import { SYSTEM_MANAGED_DIR } from './hermes/managed-scope.js';
import { loadLspServers, type LspServerSpec } from './settings/lsp-servers.js';
import { authSettings, type AuthConfig } from './settings/auth.js';

/**
 * The variables that decide which Honcho, workspace, peer and session Hermes' memory uses. For these,
 * `$HERMES_HOME/.env` wins over the process environment, as in Hermes (environment.ts).
 */
export const HONCHO_IDENTITY_ENV_KEYS = ['HONCHO_API_KEY', 'HONCHO_BASE_URL', 'HONCHO_URL', 'HONCHO_ENVIRONMENT', 'HERMES_HONCHO_HOST'] as const;
/** The environment variables Hermes' Honcho resolution reads (GatewayConfig.honchoEnv carries them to tools/memory/config.ts). */
export const HONCHO_ENV_KEYS = [...HONCHO_IDENTITY_ENV_KEYS, 'HOME'] as const;
/** What Hermes reads from the environment for Camofox and its private-URL opt-out (GatewayConfig.browserEnv, tools/browser/settings.ts). */
export const BROWSER_ENV_KEYS = ['CAMOFOX_URL', 'CAMOFOX_API_KEY', 'CAMOFOX_USER_ID', 'CAMOFOX_SESSION_KEY', 'HERMES_ALLOW_PRIVATE_URLS'] as const;

// Everything the gateway reads from its environment, in one place, with the documented defaults
// (docs/configuration.md).

const DEFAULT_PORT = 3060;
export const DEFAULT_HOST = '127.0.0.1';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface GatewayConfig {
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
  /** The graph upstream's argv (`HERMES_MCP_GRAPH_COMMAND`, split on whitespace, no shell), default `samchon-graph`. */
  graphCommand: readonly string[];
  /** The one tool the graph upstream must list (`HERMES_MCP_GRAPH_TOOL`), default `inspect_code_graph`. */
  graphTool: string;
  /**
   * Variables handed to the graph upstream on top of the workers' scrubbed environment, which would
   * drop them (`HERMES_MCP_GRAPH_ENV_PASSTHROUGH`, comma-separated names, default `TTSC_GRAPH_BINARY`):
   * the names that are set, with their values.
   */
  graphEnvironment: Readonly<Record<string, string>>;
  /**
   * What Hermes' Camofox browser backend reads from the environment (supervisor/tools/browser/settings.ts):
   * CAMOFOX_URL, CAMOFOX_API_KEY, CAMOFOX_USER_ID, CAMOFOX_SESSION_KEY, HERMES_ALLOW_PRIVATE_URLS.
   */
  browserEnv: Readonly<Record<string, string>>;
  /**
   * `HERMES_MCP_HERMES_TOOLS_COMMAND` (split on whitespace, no shell): the command that runs Hermes'
   * own stdio MCP tool server (supervisor/tools/hermes-tools/) instead of
   * `<Hermes' interpreter> -m agent.transports.hermes_tools_mcp_server`; undefined when unset.
   */
  hermesToolsCommand: readonly string[] | undefined;
  /**
   * `HERMES_AGENT_PYTHON`: the Hermes Agent interpreter, when set; otherwise the gateway finds it
   * where Hermes' installers put it (supervisor/platform/hermes/locate.ts).
   */
  hermesAgentPython: string | undefined;
  /** Hermes' source checkout: `HERMES_AGENT_SRC`, default `$HERMES_HOME/hermes-agent` (where its installer clones it; for a profile home, the one under its root). */
  hermesAgentSource: string;
  /** The cwd of the Hermes processes the gateway starts: the source checkout, or `$HERMES_HOME` when that does not exist. */
  hermesToolsCwd: string;
  /**
   * `HERMES_MCP_HERMES_VERSION`: the Hermes Agent version the gateway follows instead of the one it
   * reads at startup (a PEP 440 version), for an install whose version cannot be read; undefined when unset.
   */
  hermesVersion: string | undefined;
  /**
   * The page the startup web_extract smoke call reads for /readyz web_provider:
   * `HERMES_MCP_WEB_SMOKE_URL` (default https://example.com/), an absolute http(s) URL. Hermes
   * refuses a URL whose host does not resolve or resolves to a private address (unless its
   * `security.allow_private_urls` is on), so an offline or intranet deployment names one it can read.
   */
  webSmokeUrl: string;
  /** Public URL, credentials, OAuth and audit (supervisor/platform/settings/auth.ts). */
  auth: AuthConfig;
}

export interface LspConfig {
  /**
   * Roots where a language server may be started (`HERMES_MCP_LSP_TRUSTED_ROOTS`, colon-separated
   * absolute paths; default none): a server runs the project's own configuration and plugins, so
   * starting one is an act of trust the operator makes per root.
   */
  trustedRoots: string[];
  /** The servers in effect: the defaults plus `HERMES_MCP_LSP_SERVERS` (a JSON file), by name. */
  servers: LspServerSpec[];
  /** Where server programs are looked up, and the PATH they run with: `PATH` at start-up. */
  searchPath: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function expandHome(p: string): string {
  return p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

function parseRoots(text: string | undefined): string[] {
  const raw = text === undefined || text === '' ? ['~/work'] : text.split(':').filter((s) => s.length > 0);
  return raw.map((r) => {
    const p = expandHome(r);
    if (!isAbsolute(p)) throw new ConfigError(`HERMES_MCP_ROOTS entries must be absolute paths, got ${JSON.stringify(r)}`);
    return resolve(p);
  });
}

function parseTrustedRoots(text: string | undefined): string[] {
  return (text ?? '').split(':').filter((s) => s.length > 0).map((r) => {
    const p = expandHome(r);
    if (!isAbsolute(p)) throw new ConfigError(`HERMES_MCP_LSP_TRUSTED_ROOTS entries must be absolute paths, got ${JSON.stringify(r)}`);
    return resolve(p);
  });
}

function lspConfig(env: NodeJS.ProcessEnv): LspConfig {
  let servers: LspServerSpec[];
  try {
    servers = loadLspServers(env.HERMES_MCP_LSP_SERVERS || undefined);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  return { trustedRoots: parseTrustedRoots(env.HERMES_MCP_LSP_TRUSTED_ROOTS), servers, searchPath: env.PATH || '/usr/bin:/bin' };
}

function parseFileAccess(text: string | undefined): FileAccessMode {
  if (text === undefined || text === '') return 'roots';
  const mode = FILE_ACCESS_MODES.find((m) => m === text);
  if (!mode) throw new ConfigError(`HERMES_MCP_FILE_ACCESS must be one of ${FILE_ACCESS_MODES.join(', ')}, got ${JSON.stringify(text)}`);
  return mode;
}

/** How log records are written: one JSON object a line (services, pipes), or lines for a person on a terminal (supervisor/platform/telemetry.ts). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

function parseLogFormat(text: string | undefined): LogFormat | 'auto' {
  if (text === undefined || text === '' || text === 'auto') return 'auto';
  const format = LOG_FORMATS.find((f) => f === text);
  if (!format) throw new ConfigError(`HERMES_MCP_LOG_FORMAT must be auto, ${LOG_FORMATS.join(' or ')}, got ${JSON.stringify(text)}`);
  return format;
}

function firstExisting(paths: string[]): string | undefined {
  return paths.find((p) => existsSync(p));
}

/** Hermes runs execute_code with the session's venv interpreter; without one, Debian's python3. */
function defaultPython(env: NodeJS.ProcessEnv): string {
  if (env.VIRTUAL_ENV && existsSync(join(env.VIRTUAL_ENV, 'bin', 'python'))) return join(env.VIRTUAL_ENV, 'bin', 'python');
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/** The Honcho-related variables, copied so the memory adapter never reads process.env itself. */
function honchoEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = { HOME: env.HOME || homedir() };
  for (const key of HONCHO_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** The browser-related variables, copied so the browser adapter never reads process.env itself. */
function browserEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of BROWSER_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

/** The Hermes home: `HERMES_HOME` (unset or empty: `~/.hermes`), absolute. */
export function hermesHomeOf(env: NodeJS.ProcessEnv): string {
  return resolve(expandHome(env.HERMES_HOME || '~/.hermes'));
}

/** Hermes' managed scope directory as `env` names it: `HERMES_MANAGED_DIR` (blank is unset), else /etc/hermes (used only when it is a directory: managed-scope.ts). */
export function hermesManagedDirOf(env: NodeJS.ProcessEnv): string {
  return resolve(expandHome(env.HERMES_MANAGED_DIR?.trim() || SYSTEM_MANAGED_DIR));
}

/** Where the job database lives: `HERMES_MCP_JOBS_DATABASE`, else `$HERMES_HOME/gateway-jobs.sqlite3` (the gateway's and the operator CLI's default). */
export function defaultJobsDatabase(env: NodeJS.ProcessEnv): string {
  const hermesHome = hermesHomeOf(env);
  return resolve(expandHome(env.HERMES_MCP_JOBS_DATABASE || join(hermesHome, 'gateway-jobs.sqlite3')));
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

/** A frozen copy of `env` without its undefined entries (the shape of `inheritedEnvironment`). */
export function environmentSnapshot(env: NodeJS.ProcessEnv): Readonly<Record<string, string>> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // defineProperty: a variable literally named `__proto__` is still an ordinary entry.
    if (value !== undefined) Object.defineProperty(copy, name, { value, enumerable: true });
  }
  return Object.freeze(copy);
}

const DEFAULT_GRAPH_COMMAND = 'samchon-graph';
const DEFAULT_GRAPH_TOOL = 'inspect_code_graph';
/** ttsc's graph provider finds its compiler snapshot through this variable when the project has no local ttsc. */
const DEFAULT_GRAPH_PASSTHROUGH = 'TTSC_GRAPH_BINARY';
/** MCP tool names: 1-128 characters of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** argv split on whitespace, never a shell: quoting and expansion are not applied. Blank means the default. */
/**
 * A command setting (whitespace-separated argv, no shell), or `fallback` when unset. Its program is
 * a bare name looked up on PATH or an absolute path: a relative path such as `bin/x` would be
 * resolved against each upstream's working directory (a project root), so every project could
 * supply its own executable.
 */
function parseCommand(variable: string, text: string | undefined, fallback: string[]): string[] {
  const argv = (text ?? '').split(/\s+/).filter(Boolean);
  if (argv.length === 0) return fallback;
  const program = argv[0]!;
  if (program.includes('/') && !isAbsolute(program)) {
    throw new ConfigError(`${variable} must name its program by a bare name found on PATH or an absolute path, got ${JSON.stringify(program)}`);
  }
  return argv;
}

function parseGraphTool(text: string | undefined): string {
  const name = text || DEFAULT_GRAPH_TOOL;
  if (!TOOL_NAME.test(name)) throw new ConfigError(`HERMES_MCP_GRAPH_TOOL must be an MCP tool name (1-128 of A-Z a-z 0-9 _ - .), got ${JSON.stringify(name)}`);
  return name;
}

/** The passthrough names that are set in `env`, with their values. An empty setting passes nothing. */
function graphEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const names = (env.HERMES_MCP_GRAPH_ENV_PASSTHROUGH ?? DEFAULT_GRAPH_PASSTHROUGH).split(',').map((s) => s.trim()).filter(Boolean);
  const out: Record<string, string> = {};
  for (const name of names) {
    if (!ENV_NAME.test(name)) throw new ConfigError(`HERMES_MCP_GRAPH_ENV_PASSTHROUGH must list variable names, got ${JSON.stringify(name)}`);
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Where Hermes' installer (scripts/install.sh) clones Hermes: `$HERMES_HOME/hermes-agent`. */
const HERMES_SOURCE_DIR = 'hermes-agent';

const DEFAULT_WEB_SMOKE_URL = 'https://example.com/';

function hermesTools(env: NodeJS.ProcessEnv, hermesHome: string): Pick<GatewayConfig, 'hermesToolsCommand' | 'hermesAgentPython' | 'hermesAgentSource' | 'hermesToolsCwd' | 'hermesVersion' | 'webSmokeUrl'> {
  // A profile home ($ROOT/profiles/NAME) shares its root's checkout.
  const root = basename(dirname(hermesHome)) === 'profiles' ? dirname(dirname(hermesHome)) : hermesHome;
  const defaultSource = [join(hermesHome, HERMES_SOURCE_DIR), join(root, HERMES_SOURCE_DIR)].find((d) => existsSync(d)) ?? join(hermesHome, HERMES_SOURCE_DIR);
  const source = env.HERMES_AGENT_SRC ? resolve(expandHome(env.HERMES_AGENT_SRC)) : defaultSource;
  return {
    hermesToolsCommand: env.HERMES_MCP_HERMES_TOOLS_COMMAND?.trim() ? parseCommand('HERMES_MCP_HERMES_TOOLS_COMMAND', env.HERMES_MCP_HERMES_TOOLS_COMMAND, []) : undefined,
    hermesAgentPython: env.HERMES_AGENT_PYTHON ? expandHome(env.HERMES_AGENT_PYTHON) : undefined,
    hermesAgentSource: source,
    hermesToolsCwd: env.HERMES_AGENT_SRC || existsSync(defaultSource) ? source : hermesHome,
    hermesVersion: parseHermesVersion(env.HERMES_MCP_HERMES_VERSION),
    webSmokeUrl: parseWebSmokeUrl(env.HERMES_MCP_WEB_SMOKE_URL),
  };
}

function parseHermesVersion(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const version = usableVersion(text);
  if (!version) throw new ConfigError(`HERMES_MCP_HERMES_VERSION must be a Hermes Agent version (PEP 440, e.g. 0.23.5), got ${JSON.stringify(text)}`);
  return version;
}

function parseWebSmokeUrl(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return DEFAULT_WEB_SMOKE_URL;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ConfigError(`HERMES_MCP_WEB_SMOKE_URL must be an absolute http(s) URL, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`HERMES_MCP_WEB_SMOKE_URL must be an http(s) URL, got ${JSON.stringify(text)}`);
  return url.href;
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
  const host = env.HERMES_MCP_HOST || DEFAULT_HOST;
  if (!isLoopbackHost(host)) {
    throw new ConfigError(
      `HERMES_MCP_HOST=${host} is not a loopback address: the gateway runs code with your privileges and only ever binds 127.0.0.1/::1; put a tunnel in front of it instead`,
    );
  }
  const portText = env.HERMES_MCP_PORT;
  const port = portText === undefined || portText === '' ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`HERMES_MCP_PORT must be an integer 0-65535, got ${JSON.stringify(portText)}`);
  }
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
    graphCommand: parseCommand('HERMES_MCP_GRAPH_COMMAND', env.HERMES_MCP_GRAPH_COMMAND, [DEFAULT_GRAPH_COMMAND]),
    graphTool: parseGraphTool(env.HERMES_MCP_GRAPH_TOOL),
    graphEnvironment: graphEnvironment(env),
    ...hermesTools(env, hermesHome),
    auth: parseAuth(env, hermesHome),
    stateDir: resolve(expandHome(env.HERMES_MCP_STATE_DIR || join(env.XDG_RUNTIME_DIR || tmpdir(), `hermes-mcp-gateway-${process.getuid?.() ?? 'user'}`))),
    ...overrides,
  };
  if (!isLoopbackHost(config.host)) throw new ConfigError(`host ${config.host} is not a loopback address`);
  return config;
}
