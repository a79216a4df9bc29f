import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parseEnv } from 'node:util';
import { ErrorCode } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import { ConfigError, HONCHO_IDENTITY_ENV_KEYS, hermesHomeOf, hermesManagedDirOf, loadConfig, type GatewayConfig } from './config.js';
import { managedScopeDir } from './hermes/managed-scope.js';

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
//
// Over both, Hermes loads its managed scope's `.env` (`<HERMES_MANAGED_DIR, else /etc/hermes>/.env`,
// when that is a directory: hermes_cli/managed_scope.py get_managed_dir), last and with override
// (hermes_cli/env_loader.py _apply_managed_env, in every Hermes the gateway supports; from 0.21 its
// profile secret scope reads it last too): an administrator's policy over every user's. So does
// the gateway, with the same exception: a name the process environment sets keeps its value, except
// the Honcho identity variables, where the managed file wins over the environment and over
// `$HERMES_HOME/.env`, as in Hermes. It is read with the same rules as `$HERMES_HOME/.env`, except
// that it may also belong to root (an administrator's file; root can change the gateway anyway).

export const ENV_FILE = '.env';

/**
 * The readiness components a demo home cannot have: Honcho memory, a trusted root with a language
 * server, the code graph upstream, Camofox, and Hermes' tool server with its web provider (no
 * Hermes is installed). Optional there: /readyz still reports each, and one that works is ready.
 */
export const DEMO_OPTIONAL_COMPONENTS = ['memory', 'lsp', 'graph', 'browser', 'hermes_tools', 'web_provider'] as const;

/** Where the demo lives, under the package root (`.cache/` is git-ignored). */
const DEMO_DIR = ['.cache', 'demo'];

/** The demo project's files, under the package root: copied into the demo's project root where missing. */
const DEMO_PROJECT = ['policy', 'demo-project'];

export interface DemoHome {
  /** The embedded Hermes home (SOUL.md only). */
  home: string;
  /** Its project root (the default HERMES_MCP_ROOTS), holding a copy of `project`. */
  root: string;
  /** The demo project the root is seeded from (policy/demo-project). */
  project: string;
  /** The project's files (relative paths) this start copied into the root because they were missing there. */
  seeded?: readonly string[];
  /** Whether it exists (doctor and the operator CLI never create it; the gateway does). */
  created: boolean;
}

export interface EnvironmentSources {
  /** `$HERMES_HOME/.env` and whether it was there. */
  envFile: { path: string; loaded: boolean };
  /** The managed scope's `.env` and whether it was there; absent when there is no managed scope (no such directory). */
  managedEnvFile?: { path: string; loaded: boolean };
  /** Names whose value came from the managed scope's `.env`. */
  fromManagedFile: readonly string[];
  /** Names set in the managed scope's `.env` that the process environment overrode. */
  managedOverridden: readonly string[];
  /** Names set in the managed scope's `.env` and in the process environment or `$HERMES_HOME/.env`, where the managed file won. */
  managedOverrides: readonly string[];
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
  return { home, root: join(dir, 'work'), project: join(root, ...DEMO_PROJECT), created: existsSync(join(home, 'SOUL.md')) };
}

/**
 * Makes the demo home (0700 directories, a SOUL.md) if it is not there yet, and gives its project
 * root the demo project's files that are missing there (seedProject).
 */
function createDemoHome(demo: DemoHome): DemoHome {
  for (const dir of [demo.home, demo.root]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  const soul = join(demo.home, 'SOUL.md');
  if (!existsSync(soul)) writeFileSync(soul, '# Soul\nYou are Hermes, served from the hermes-mcp-gateway demo home.\n', { mode: 0o600 });
  return { ...demo, created: true, seeded: seedProject(demo.project, demo.root) };
}

/**
 * Copies each regular file under `project` into `root` (same relative path) that `root` does not
 * have, so a first read, command or job has something to act on; a path that exists there (a file
 * the user changed, or anything else by that name) is never touched. Directories it makes are 0700,
 * files 0600; `__pycache__` directories are left out. Returns the files copied.
 */
export function seedProject(project: string, root: string): string[] {
  const copied: string[] = [];
  for (const entry of readdirSync(project, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const source = join(entry.parentPath, entry.name);
    const rel = relative(project, source);
    // Bytecode Python leaves beside the sources (git ignores it) is no part of the project.
    if (rel.split(sep).includes('__pycache__')) continue;
    const target = join(root, rel);
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    try {
      // `wx`: created only if absent, in one step (never over a file made meanwhile).
      writeFileSync(target, readFileSync(source), { flag: 'wx', mode: 0o600 });
      copied.push(rel);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return copied.sort();
}

/**
 * `path`'s variables, or undefined when there is no such file; refuses a file others could write.
 * `rootMayOwn`: a file of root is accepted too (the managed scope's, an administrator's).
 */
export function readEnvFile(path: string, options: { rootMayOwn?: boolean } = {}): Record<string, string> | undefined {
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
  if (uid !== undefined && st.uid !== uid && !(options.rootMayOwn && st.uid === 0)) {
    const owners = options.rootMayOwn ? `neither to the user running the gateway (uid ${uid}) nor to root` : `not to the user running the gateway (uid ${uid})`;
    throw new ConfigError(`${ErrorCode.ENV_FILE_UNSAFE}: ${path} belongs to uid ${st.uid}, ${owners}: run chown ${uid} ${path} (as root), or remove it`);
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
 * The environment loadConfig reads: `processEnv`, over `$HERMES_HOME/.env` and the managed scope's
 * `.env` (the managed one over the home's), over the demo home's defaults when it applies; for the
 * Honcho identity variables the files win, the managed one last. `hermesDotenv`: what the two files
 * set (the managed one's over the home's), for loadConfig's hermesDotenv. `create` makes the demo
 * home (the gateway's start does; the read-only commands do not). Throws ConfigError when a file is
 * refused.
 */
export function gatewayEnvironment(
  processEnv: NodeJS.ProcessEnv,
  options: { create?: boolean; root?: string } = {},
): { env: NodeJS.ProcessEnv; sources: EnvironmentSources; hermesDotenv: Readonly<Record<string, string>> } {
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
  // The managed scope as the configuration names it (config.hermesManagedDir).
  const scope = managedScopeDir({ hermesManagedDir: hermesManagedDirOf({ ...defaults, ...file, ...processEnv }) });
  const managedPath = scope === undefined ? undefined : join(scope, ENV_FILE);
  const managedRead = managedPath === undefined ? undefined : readEnvFile(managedPath, { rootMayOwn: true });
  const managed = managedRead ?? {};
  if (managedPath !== undefined) {
    // Read once the home and the scope are known, it can move neither.
    if (managed.HERMES_HOME !== undefined && hermesHomeOf(managed) !== home) {
      throw new ConfigError(`${ErrorCode.ENV_FILE_INVALID}: ${managedPath} sets HERMES_HOME=${managed.HERMES_HOME}, but the gateway serves ${home}: remove that line, or set HERMES_HOME in the environment`);
    }
    if (managed.HERMES_MANAGED_DIR !== undefined && hermesManagedDirOf(managed) !== scope) {
      throw new ConfigError(`${ErrorCode.ENV_FILE_INVALID}: ${managedPath} sets HERMES_MANAGED_DIR=${managed.HERMES_MANAGED_DIR}, but it is read from ${scope}: remove that line (Hermes reads HERMES_MANAGED_DIR from the environment only)`);
    }
  }
  const identity = (n: string) => (HONCHO_IDENTITY_ENV_KEYS as readonly string[]).includes(n);
  const has = (o: Record<string, string>, n: string) => Object.hasOwn(o, n);
  const origin = (n: string): 'managed' | 'file' | 'process' => {
    if (!identity(n) && processEnv[n] !== undefined) return 'process';
    return has(managed, n) ? 'managed' : has(file, n) ? 'file' : 'process';
  };
  const winning: Record<string, string> = {};
  for (const n of [...Object.keys(file), ...Object.keys(managed)]) {
    if (identity(n)) Object.defineProperty(winning, n, { value: origin(n) === 'managed' ? managed[n] : file[n], enumerable: true, configurable: true });
  }
  const env: NodeJS.ProcessEnv = { ...defaults, ...file, ...managed, ...processEnv, ...winning };
  const names = Object.keys(file);
  const managedNames = Object.keys(managed);
  return {
    env,
    hermesDotenv: Object.freeze({ ...file, ...managed }),
    sources: {
      envFile: { path, loaded: read !== undefined },
      ...(managedPath !== undefined ? { managedEnvFile: { path: managedPath, loaded: managedRead !== undefined } } : {}),
      fromFile: names.filter((n) => origin(n) === 'file'),
      overridden: names.filter((n) => origin(n) === 'process'),
      fileOverrides: names.filter((n) => origin(n) === 'file' && processEnv[n] !== undefined),
      fromManagedFile: managedNames.filter((n) => origin(n) === 'managed'),
      managedOverridden: managedNames.filter((n) => origin(n) === 'process'),
      managedOverrides: managedNames.filter((n) => origin(n) === 'managed' && (processEnv[n] !== undefined || has(file, n))),
      unexpanded: [...new Set([...names.filter((n) => /\$\{[^}]+\}/.test(file[n]!)), ...managedNames.filter((n) => /\$\{[^}]+\}/.test(managed[n]!))])],
      ...(demo ? { demo } : {}),
    },
  };
}

/** What the gateway's start uses: the configuration from gatewayEnvironment (creating the demo home if it applies), and where its values came from. */
export function loadGatewayConfig(processEnv: NodeJS.ProcessEnv): { config: GatewayConfig; sources: EnvironmentSources } {
  const { env, sources, hermesDotenv } = gatewayEnvironment(processEnv, { create: true });
  return { config: loadConfig(env, { hermesDotenv }), sources };
}

/** The one start-up line each for the demo home and the `.env` file (names only, never values). */
export function describeSources(sources: EnvironmentSources): Array<{ event: string; message: string; fields: Record<string, unknown> }> {
  const lines = [];
  if (sources.demo) {
    const optional = DEMO_OPTIONAL_COMPONENTS.join(', ');
    lines.push({
      event: 'demo_home',
      fields: { home: sources.demo.home, root: sources.demo.root, optional: [...DEMO_OPTIONAL_COMPONENTS], seeded: [...(sources.demo.seeded ?? [])] },
      message:
        `demo home at ${sources.demo.home} (project root ${sources.demo.root}): HERMES_HOME is unset and ~/.hermes does not exist, so this checkout serves an embedded demo home; ` +
        `${optional} are optional here (no Honcho, language server, code graph, Camofox or Hermes install is configured for it); ` +
        'set HERMES_HOME to your Hermes home (or create ~/.hermes) to serve a real one',
    });
  }
  if (sources.managedEnvFile?.loaded) {
    lines.push({
      event: 'managed_env_file',
      fields: { path: sources.managedEnvFile.path, from_file: sources.fromManagedFile, overridden_by_environment: sources.managedOverridden, overriding: sources.managedOverrides },
      message: `read the managed scope's ${sources.managedEnvFile.path}: ${sources.fromManagedFile.length} setting(s) from the file${sources.managedOverridden.length ? `, ${sources.managedOverridden.length} overridden by the environment` : ''}${sources.managedOverrides.length ? `, ${sources.managedOverrides.length} over the environment's or ${sources.envFile.path}'s, as in Hermes` : ''}`,
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
