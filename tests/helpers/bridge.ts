import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startHermesApiStandin, type HermesApiStandin, type StandinOptions } from '../fixtures/hermes-api-standin.js';

// A hermes-mcp-bridge deployment in a temp directory: the bridge's .env (0600) with a fresh
// token, the Hermes agent's .env naming a running Hermes API stand-in, a tasks directory and,
// when asked, an agents.yaml (0600) and a contract. `env` is what a gateway test passes.

export const STANDIN_KEY = 'sk-standin-key-0123456789abcdef';

export interface BridgeFixture {
  dir: string;
  envFile: string;
  token: string;
  tasksDir: string;
  agentsFile: string;
  contractFile: string;
  auditLog: string;
  standin: HermesApiStandin;
  env: Record<string, string>;
  writeAgents(yaml: string, mode?: number): void;
  close(): Promise<void>;
}

export async function makeBridgeFixture(dir: string, options: { mcpPort?: number; standin?: Partial<StandinOptions>; extraEnv?: string } = {}): Promise<BridgeFixture> {
  const standin = await startHermesApiStandin({ key: STANDIN_KEY, ...options.standin });
  const port = new URL(standin.url).port;
  const token = randomBytes(32).toString('hex');
  const hermesEnv = join(dir, 'hermes.env');
  writeFileSync(hermesEnv, `API_SERVER_ENABLED=true\nAPI_SERVER_KEY=${STANDIN_KEY}\nAPI_SERVER_HOST=127.0.0.1\nAPI_SERVER_PORT=${port}\n`, { mode: 0o600 });
  const tasksDir = join(dir, 'tasks');
  mkdirSync(tasksDir);
  const agentsFile = join(dir, 'agents.yaml');
  const contractFile = join(dir, 'contract.md');
  writeFileSync(contractFile, '# Contract\nAnswer JSON {summary, artifacts, next_steps}.\n');
  const auditLog = join(dir, 'audit.jsonl');
  const envFile = join(dir, 'bridge.env');
  writeFileSync(
    envFile,
    [
      `MCP_AUTH_TOKEN=${token}`,
      `HERMES_ENV_PATH=${hermesEnv}`,
      `HERMES_CONTRACT_PATH=${contractFile}`,
      `TASKS_DIR=${tasksDir}`,
      `AGENTS_FILE=${agentsFile}`,
      `AUDIT_LOG=${auditLog}`,
      ...(options.mcpPort !== undefined ? [`MCP_PORT=${options.mcpPort}`] : []),
      options.extraEnv ?? '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    dir,
    envFile,
    token,
    tasksDir,
    agentsFile,
    contractFile,
    auditLog,
    standin,
    env: { HERMES_MCP_BRIDGE_ENV: envFile },
    writeAgents(yaml, mode = 0o600) {
      writeFileSync(agentsFile, yaml, { mode });
      chmodSync(agentsFile, mode);
    },
    close: () => standin.close(),
  };
}
