import { lstatSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';

// The hermes-mcp-bridge `.env` file, read as that bridge reads it, so an existing bridge
// deployment's file works unchanged: MCP_AUTH_TOKEN, MCP_PORT, HERMES_ENV_PATH (the Hermes agent's
// own .env: API_SERVER_KEY, API_SERVER_HOST, API_SERVER_PORT), HERMES_CONTRACT_PATH, TASKS_DIR,
// AGENTS_FILE, and AUDIT_LOG (this gateway's addition; the bridge names no audit path). Paths are
// absolute or start with `$HOME`; `~` is not expanded, as in the bridge. The Hermes API key is held
// in memory only and never leaves this process except as the upstream Authorization header.

export interface BridgeSettings {
  envFile: string;
  /** Own loopback listener for the drop-in profile (`MCP_PORT`); unset, only /bridge/* on the gateway port. */
  mcpPort?: number;
  contractPath?: string;
  tasksDir: string;
  agentsFile: string;
  auditLog: string;
  /** The local Hermes API server from HERMES_ENV_PATH: the synthetic default agent. */
  api: { host: string; port: number; key?: string };
  /** Values `key_env` may name besides the process environment: the bridge .env, then the Hermes .env (never MCP_AUTH_TOKEN). */
  keyValues: Readonly<Record<string, string>>;
}

export type SettingsResolution = { status: 'configured'; settings: BridgeSettings } | { status: 'invalid'; reason: string };

const TOKEN = /^[0-9a-f]{64}$/i;

/** Reads a dotenv file (Node's own parser: quotes, comments, `export` are handled as dotenv does). */
export function readEnvFile(file: string): Record<string, string> {
  const parsed = parseEnv(readFileSync(file, 'utf8'));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) if (v !== undefined) out[k] = v;
  return out;
}

/** A file holding a secret must be private: no access for group or others. */
export function privateFileProblem(file: string): string | undefined {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return `${file} does not exist`;
  if (!stat.isFile()) return `${file} is not a regular file`;
  if ((stat.mode & 0o077) !== 0) return `${file} is mode ${(stat.mode & 0o777).toString(8)}; run chmod 600 ${file}`;
  return undefined;
}

function pathValue(name: string, value: string | undefined, userHome: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const expanded = value.replace(/^\$\{?HOME\}?(?=\/|$)/, userHome);
  if (!isAbsolute(expanded)) throw new Error(`${name} must be an absolute path or start with $HOME (~ is not expanded), got ${JSON.stringify(value)}`);
  return resolve(expanded);
}

function portValue(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be an integer 0-65535, got ${JSON.stringify(value)}`);
  return n;
}

/** MCP_AUTH_TOKEN when it is the 64-hex token gen-token writes; anything else is no token. */
export function readBridgeToken(envFile: string): string | undefined {
  try {
    const token = readEnvFile(envFile).MCP_AUTH_TOKEN;
    return token !== undefined && TOKEN.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}

export function resolveBridgeSettings(envFile: string, hermesHome: string, userHome: string): SettingsResolution {
  try {
    const problem = privateFileProblem(envFile);
    if (problem) return { status: 'invalid', reason: `bridge env file (HERMES_MCP_BRIDGE_ENV): ${problem}` };
    const env = readEnvFile(envFile);
    const hermesEnvPath = pathValue('HERMES_ENV_PATH', env.HERMES_ENV_PATH, userHome);
    const hermesEnv = hermesEnvPath ? readEnvFile(hermesEnvPath) : {};
    const keyValues: Record<string, string> = { ...hermesEnv, ...env };
    delete keyValues.MCP_AUTH_TOKEN;
    const mcpPort = portValue('MCP_PORT', env.MCP_PORT);
    const contractPath = pathValue('HERMES_CONTRACT_PATH', env.HERMES_CONTRACT_PATH, userHome);
    const settings: BridgeSettings = {
      envFile,
      ...(mcpPort !== undefined ? { mcpPort } : {}),
      ...(contractPath ? { contractPath } : {}),
      tasksDir: pathValue('TASKS_DIR', env.TASKS_DIR, userHome) ?? join(hermesHome, 'bridge-tasks'),
      agentsFile: pathValue('AGENTS_FILE', env.AGENTS_FILE, userHome) ?? join(userHome, '.hermes', 'agents.yaml'),
      auditLog: pathValue('AUDIT_LOG', env.AUDIT_LOG, userHome) ?? join(hermesHome, 'logs', 'bridge-audit.jsonl'),
      api: {
        host: hermesEnv.API_SERVER_HOST || '127.0.0.1',
        port: portValue('API_SERVER_PORT', hermesEnv.API_SERVER_PORT) ?? 8642,
        ...(hermesEnv.API_SERVER_KEY ? { key: hermesEnv.API_SERVER_KEY } : {}),
      },
      keyValues,
    };
    return { status: 'configured', settings };
  } catch (e) {
    return { status: 'invalid', reason: `bridge env file (HERMES_MCP_BRIDGE_ENV): ${(e as Error).message}` };
  }
}
