import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { GatewayConfig } from '../config.js';

// Where Hermes' installers put the interpreter Hermes runs on: the candidates locate.ts asks, in
// order, which Hermes each has.

/** The module Hermes' stdio MCP tool server runs as. */
export const HERMES_TOOLS_MODULE = 'agent.transports.hermes_tools_mcp_server';

/** How the interpreter was found. */
export type InterpreterSource =
  | 'HERMES_AGENT_PYTHON'
  | 'HERMES_MCP_HERMES_TOOLS_COMMAND'
  | 'source tree venv'
  | "Hermes' dependency environment"
  | '$HERMES_HOME/venvs';

interface Candidate {
  python: string;
  from: InterpreterSource;
  /** Accepted only when its Hermes is this source tree's (a venv beside others, whose purpose is not known). */
  mustBeTree?: string;
}

/**
 * The directories a Hermes home's installs and venvs live under: the home, the root above a profile
 * home, the platform default (`~/.hermes` of the user the gateway serves: config.userHome).
 */
function hermesRoots(config: Pick<GatewayConfig, 'hermesHome' | 'userHome'>): string[] {
  const { hermesHome } = config;
  const roots = [hermesHome];
  if (basename(dirname(hermesHome)) === 'profiles') roots.push(dirname(dirname(hermesHome)));
  roots.push(join(config.userHome, '.hermes'));
  return [...new Set(roots.map((r) => resolve(r)))];
}

export function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The settings interpreterCandidates reads. */
export type InterpreterSettings = Pick<GatewayConfig, 'hermesAgentPython' | 'hermesToolsCommand' | 'hermesAgentSource' | 'hermesHome' | 'userHome'>;

/**
 * The interpreter candidates, in order: an explicit setting alone, else where Hermes' installers
 * put it — the source tree's `venv` then `.venv` (hermes_constants.project_venv_dir: `venv` wins
 * when both exist), the environment Hermes' package manager committed for this checkout (the
 * `packages.venv.environment` record of `installs/<key>/facts.json` under a Hermes root,
 * pm/environments.py runtime_facts_path; the key is the first 16 hex digits of the sha256 of the
 * checkout's real path, install_key), and the venvs an installer keeps outside the checkout
 * (`$HERMES_HOME/venvs/<name>`), accepted only when their Hermes is this checkout's.
 */
export function interpreterCandidates(config: InterpreterSettings): Candidate[] {
  if (config.hermesAgentPython) return [{ python: config.hermesAgentPython, from: 'HERMES_AGENT_PYTHON' }];
  const override = config.hermesToolsCommand;
  if (override && override[1] === '-m' && override[2] === HERMES_TOOLS_MODULE) return [{ python: override[0]!, from: 'HERMES_MCP_HERMES_TOOLS_COMMAND' }];
  const source = config.hermesAgentSource;
  const out: Candidate[] = [
    { python: join(source, 'venv', 'bin', 'python'), from: 'source tree venv' },
    { python: join(source, '.venv', 'bin', 'python'), from: 'source tree venv' },
  ];
  const key = createHash('sha256').update(realpathOr(source)).digest('hex').slice(0, 16);
  for (const root of hermesRoots(config)) {
    const environment = committedEnvironment(join(root, 'installs', key, 'facts.json'));
    if (environment) out.push({ python: join(environment, 'bin', 'python'), from: "Hermes' dependency environment" });
  }
  for (const root of hermesRoots(config)) {
    let names: string[] = [];
    try {
      names = readdirSync(join(root, 'venvs')).sort();
    } catch {
      // no venvs there
    }
    for (const name of names) out.push({ python: join(root, 'venvs', name, 'bin', 'python'), from: '$HERMES_HOME/venvs', mustBeTree: realpathOr(source) });
  }
  return out;
}

/** The environment a package-manager record names, when it is a venv (pyvenv.cfg present). */
function committedEnvironment(factsFile: string): string | undefined {
  try {
    const facts = JSON.parse(readFileSync(factsFile, 'utf8')) as { packages?: { venv?: { environment?: unknown } } };
    const environment = facts.packages?.venv?.environment;
    return typeof environment === 'string' && existsSync(join(environment, 'pyvenv.cfg')) ? environment : undefined;
  } catch {
    return undefined;
  }
}
