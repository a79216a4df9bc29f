import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { FILE_ACCESS_MODES, type FileAccessMode } from '../roots.js';
import { SYSTEM_MANAGED_DIR } from '../hermes/managed-scope.js';
import { loadLspServers, type LspServerSpec } from './lsp-servers.js';

// The single settings loadConfig (supervisor/platform/config.ts) reads from the environment: each
// parsed on its own, with its documented default (docs/configuration.md), and a ConfigError that
// names the variable when its value cannot be used.

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const DEFAULT_PORT = 3060;
export const DEFAULT_HOST = '127.0.0.1';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function expandHome(p: string): string {
  return p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

/** `HERMES_MCP_HOST`, default 127.0.0.1: a loopback address only. */
export function parseHost(text: string | undefined): string {
  const host = text || DEFAULT_HOST;
  if (!isLoopbackHost(host)) {
    throw new ConfigError(
      `HERMES_MCP_HOST=${host} is not a loopback address: the gateway runs code with your privileges and only ever binds 127.0.0.1/::1; put a tunnel in front of it instead`,
    );
  }
  return host;
}

/** `HERMES_MCP_PORT`, default 3060: an integer 0-65535. */
export function parsePort(text: string | undefined): number {
  const port = text === undefined || text === '' ? DEFAULT_PORT : Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`HERMES_MCP_PORT must be an integer 0-65535, got ${JSON.stringify(text)}`);
  }
  return port;
}

export function parseRoots(text: string | undefined): string[] {
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

export function lspConfig(env: NodeJS.ProcessEnv): LspConfig {
  let servers: LspServerSpec[];
  try {
    servers = loadLspServers(env.HERMES_MCP_LSP_SERVERS || undefined);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  return { trustedRoots: parseTrustedRoots(env.HERMES_MCP_LSP_TRUSTED_ROOTS), servers, searchPath: env.PATH || '/usr/bin:/bin' };
}

export function parseFileAccess(text: string | undefined): FileAccessMode {
  if (text === undefined || text === '') return 'roots';
  const mode = FILE_ACCESS_MODES.find((m) => m === text);
  if (!mode) throw new ConfigError(`HERMES_MCP_FILE_ACCESS must be one of ${FILE_ACCESS_MODES.join(', ')}, got ${JSON.stringify(text)}`);
  return mode;
}

/** How log records are written: one JSON object a line (services, pipes), or lines for a person on a terminal (supervisor/platform/telemetry.ts). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function parseLogFormat(text: string | undefined): LogFormat | 'auto' {
  if (text === undefined || text === '' || text === 'auto') return 'auto';
  const format = LOG_FORMATS.find((f) => f === text);
  if (!format) throw new ConfigError(`HERMES_MCP_LOG_FORMAT must be auto, ${LOG_FORMATS.join(' or ')}, got ${JSON.stringify(text)}`);
  return format;
}

export function firstExisting(paths: string[]): string | undefined {
  return paths.find((p) => existsSync(p));
}

/** Hermes runs execute_code with the session's venv interpreter; without one, Debian's python3. */
export function defaultPython(env: NodeJS.ProcessEnv): string {
  if (env.VIRTUAL_ENV && existsSync(join(env.VIRTUAL_ENV, 'bin', 'python'))) return join(env.VIRTUAL_ENV, 'bin', 'python');
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
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
 * A command setting (whitespace-separated argv, no shell: quoting and expansion are not applied), or
 * `fallback` when unset or blank. Its program is a bare name looked up on PATH or an absolute path:
 * a relative path such as `bin/x` would be resolved against each upstream's working directory (a
 * project root), so every project could supply its own executable.
 */
export function parseCommand(variable: string, text: string | undefined, fallback: string[]): string[] {
  const argv = (text ?? '').split(/\s+/).filter(Boolean);
  if (argv.length === 0) return fallback;
  const program = argv[0]!;
  if (program.includes('/') && !isAbsolute(program)) {
    throw new ConfigError(`${variable} must name its program by a bare name found on PATH or an absolute path, got ${JSON.stringify(program)}`);
  }
  return argv;
}
