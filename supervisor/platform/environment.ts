import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { parseEnv } from 'node:util';
import { ErrorCode } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import { ConfigError, HONCHO_IDENTITY_ENV_KEYS, hermesHomeOf, loadConfig, type GatewayConfig } from './config.js';

// The environment every way of starting the gateway sees (npm start, the bin, the systemd unit,
// `doctor`, `hermes-mcp-auth`): the process environment, over `$HERMES_HOME/.env`, over the demo
// home's defaults when the checkout is started without a Hermes home. The result is what
// loadConfig reads, so loadConfig stays the one place that turns the environment into settings.
//
// `$HERMES_HOME/.env` is the file Hermes itself loads at startup (hermes_cli/env_loader.py,
// load_hermes_dotenv, with python-dotenv). Two differences, both deliberate: here a variable set in
// the process environment wins over the file (Hermes loads the file with override=True), so a
// one-off `HERMES_MCP_PORT=3061 npm start` or a unit's Environment= line means what it says — except
// for the variables that decide Hermes' Honcho identity (HONCHO_IDENTITY_ENV_KEYS), where the file
// wins as in Hermes (its CLI's override=True; from 0.21 also its profile secret scope,
// agent/secret_scope.py get_secret, which reads the profile's .env before the process environment):
// any other answer would have the gateway write memory into another Honcho, workspace or session
// than the Hermes of that home; and
// values are taken literally, as Node's own `.env` parser (util.parseEnv) reads them: no `${VAR}`
// expansion. The file is refused unless it belongs to the user running the gateway and is not
// group- or world-writable: whoever can write it configures a process that runs code as that user.

export const ENV_FILE = '.env';

/**
 * The readiness components a demo home cannot have: Honcho memory, a trusted root with a language
 * server, the code graph upstream, Camofox, and Hermes' tool server with its web provider (no
 * Hermes is installed). Optional there: /readyz still reports each, and one that works is ready.
 */
export const DEMO_OPTIONAL_COMPONENTS = ['memory', 'lsp', 'graph', 'browser', 'hermes_tools', 'web_provider'] as const;

/** Where the demo lives, under the package root (`.cache/` is git-ignored). */
const DEMO_DIR = ['.cache', 'demo'];

export interface DemoHome {
  /** The embedded Hermes home (SOUL.md only). */
  home: string;
  /** Its project root (the default HERMES_MCP_ROOTS). */
  root: string;
  /** Whether it exists (doctor and the operator CLI never create it; the gateway does). */
  created: boolean;
}

export interface EnvironmentSources {
  /** `$HERMES_HOME/.env` and whether it was there. */
  envFile: { path: string; loaded: boolean };
  /** Names whose value came from the file. */
  fromFile: readonly string[];
  /** Names set in the file that the process environment overrode. */
  overridden: readonly string[];
  /** Names set in both where the file won, as in Hermes (the Honcho identity variables). */
  fileOverrides: readonly string[];
  /** Names whose value in the file holds `${...}`, which Hermes (python-dotenv) expands and the gateway takes literally. */
  unexpanded: readonly string[];
  /** Set when the checkout runs without a Hermes home (see demoHome). */
  demo?: DemoHome;
}

/**
 * "Started from the checkout": the package root is a git checkout (`.git`, a directory or a
 * worktree's file) and not a package installed under `node_modules`. An install (npm pack,
 * a deployment copy) never gets a demo home.
 */
export function startedFromCheckout(root: string): boolean {
  return existsSync(join(root, '.git')) && !root.split(sep).includes('node_modules');
}

/**
 * The demo home, when it applies: HERMES_HOME unset (or empty), started from the checkout, and the
 * default Hermes home (`~/.hermes`) missing. An explicit HERMES_HOME (the systemd unit always sets
 * one) never falls back to it: a production start with a missing home is reported by /readyz.
 */
export function demoHome(env: NodeJS.ProcessEnv, root: string): DemoHome | undefined {
  if (env.HERMES_HOME || !startedFromCheckout(root) || existsSync(hermesHomeOf(env))) return undefined;
  const dir = join(root, ...DEMO_DIR);
  const home = join(dir, 'hermes-home');
  return { home, root: join(dir, 'work'), created: existsSync(join(home, 'SOUL.md')) };
}

/** Makes the demo home (0700 directories, a SOUL.md) if it is not there yet. */
function createDemoHome(demo: DemoHome): DemoHome {
  for (const dir of [demo.home, demo.root]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const soul = join(demo.home, 'SOUL.md');
  if (!existsSync(soul)) writeFileSync(soul, '# Soul\nYou are Hermes, served from the hermes-mcp-gateway demo home.\n', { mode: 0o600 });
  return { ...demo, created: true };
}

/** `path`'s variables, or undefined when there is no such file; refuses a file others could write. */
export function readEnvFile(path: string): Record<string, string> | undefined {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(`${ErrorCode.ENV_FILE_INVALID}: ${path} cannot be read (${code}): fix its directory's permissions, or remove it`);
  }
  if (!st.isFile()) throw new ConfigError(`${ErrorCode.ENV_FILE_INVALID}: ${path} is not a regular file: make it one (KEY=value lines), or remove it`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new ConfigError(`${ErrorCode.ENV_FILE_UNSAFE}: ${path} belongs to uid ${st.uid}, not to the user running the gateway (uid ${uid}): run chown ${uid} ${path} (as root), or remove it`);
  }
  if (st.mode & 0o022) {
    throw new ConfigError(`${ErrorCode.ENV_FILE_UNSAFE}: ${path} is group- or world-writable (mode ${(st.mode & 0o777).toString(8)}), so others could configure the gateway: run chmod 600 ${path}`);
  }
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${ErrorCode.ENV_FILE_INVALID}: ${path} cannot be read (${(e as NodeJS.ErrnoException).code}): run chmod 600 ${path}`);
  }
  const values: Record<string, string> = {};
  // A UTF-8 byte-order mark (as some editors write) is not part of the first name; Hermes strips it too.
  for (const [name, value] of Object.entries(parseEnv(text.replace(/^\uFEFF/, '')))) {
    if (value !== undefined) Object.defineProperty(values, name, { value, enumerable: true });
  }
  return values;
}

/**
 * The environment loadConfig reads: `processEnv`, over `$HERMES_HOME/.env`, over the demo home's
 * defaults when it applies. `create` makes the demo home (the gateway's start does; the read-only
 * commands do not). Throws ConfigError when the file is refused.
 */
export function gatewayEnvironment(processEnv: NodeJS.ProcessEnv, options: { create?: boolean; root?: string } = {}): { env: NodeJS.ProcessEnv; sources: EnvironmentSources } {
  let demo = demoHome(processEnv, options.root ?? packageRoot());
  if (demo && options.create) demo = createDemoHome(demo);
  const defaults: Record<string, string> = demo
    ? { HERMES_HOME: demo.home, HERMES_MCP_ROOTS: demo.root, HERMES_MCP_OPTIONAL_COMPONENTS: DEMO_OPTIONAL_COMPONENTS.join(',') }
    : {};
  const home = hermesHomeOf({ ...defaults, ...processEnv });
  const path = join(home, ENV_FILE);
  const read = readEnvFile(path);
  const file = read ?? {};
  // The file is found through HERMES_HOME, so it cannot move the home; one that tries is a mistake to show, not to follow.
  if (file.HERMES_HOME !== undefined && hermesHomeOf(file) !== home) {
    throw new ConfigError(`${ErrorCode.ENV_FILE_INVALID}: ${path} sets HERMES_HOME=${file.HERMES_HOME}, but it is read from ${home}: remove that line, or set HERMES_HOME in the environment`);
  }
  const names = Object.keys(file);
  const fileWins = (n: string) => (HONCHO_IDENTITY_ENV_KEYS as readonly string[]).includes(n);
  const winning = Object.fromEntries(names.filter(fileWins).map((n) => [n, file[n]]));
  const env: NodeJS.ProcessEnv = { ...defaults, ...file, ...processEnv, ...winning };
  return {
    env,
    sources: {
      envFile: { path, loaded: read !== undefined },
      fromFile: names.filter((n) => processEnv[n] === undefined || fileWins(n)),
      overridden: names.filter((n) => processEnv[n] !== undefined && !fileWins(n)),
      fileOverrides: names.filter((n) => processEnv[n] !== undefined && fileWins(n)),
      unexpanded: names.filter((n) => /\$\{[^}]+\}/.test(file[n]!)),
      ...(demo ? { demo } : {}),
    },
  };
}

/** What the gateway's start uses: the configuration from gatewayEnvironment (creating the demo home if it applies), and where its values came from. */
export function loadGatewayConfig(processEnv: NodeJS.ProcessEnv): { config: GatewayConfig; sources: EnvironmentSources } {
  const { env, sources } = gatewayEnvironment(processEnv, { create: true });
  return { config: loadConfig(env), sources };
}

/** The one start-up line each for the demo home and the `.env` file (names only, never values). */
export function describeSources(sources: EnvironmentSources): Array<{ event: string; message: string; fields: Record<string, unknown> }> {
  const lines = [];
  if (sources.demo) {
    const optional = DEMO_OPTIONAL_COMPONENTS.join(', ');
    lines.push({
      event: 'demo_home',
      fields: { home: sources.demo.home, root: sources.demo.root, optional: [...DEMO_OPTIONAL_COMPONENTS] },
      message:
        `demo home at ${sources.demo.home} (project root ${sources.demo.root}): HERMES_HOME is unset and ~/.hermes does not exist, so this checkout serves an embedded demo home; ` +
        `${optional} are optional here (no Honcho, language server, code graph, Camofox or Hermes install is configured for it); ` +
        'set HERMES_HOME to your Hermes home (or create ~/.hermes) to serve a real one',
    });
  }
  if (sources.envFile.loaded) {
    lines.push({
      event: 'env_file',
      fields: { path: sources.envFile.path, from_file: sources.fromFile, overridden_by_environment: sources.overridden, overriding_environment: sources.fileOverrides },
      message: `read ${sources.envFile.path}: ${sources.fromFile.length} setting(s) from the file${sources.overridden.length ? `, ${sources.overridden.length} overridden by the environment` : ''}${sources.fileOverrides.length ? `, ${sources.fileOverrides.length} Honcho setting(s) over the environment's, as in Hermes` : ''}`,
    });
  }
  return lines;
}
