import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { usableVersion } from '../hermes/release.js';
import { ConfigError, expandHome, parseCommand } from './values.js';

// The settings of the programs the gateway fronts: the graph upstream (an MCP server it starts per
// project) and the Hermes Agent install (its interpreter, source checkout, tool server and version).

const DEFAULT_GRAPH_COMMAND = 'samchon-graph';
const DEFAULT_GRAPH_TOOL = 'inspect_code_graph';
/** ttsc's graph provider finds its compiler snapshot through this variable when the project has no local ttsc. */
const DEFAULT_GRAPH_PASSTHROUGH = 'TTSC_GRAPH_BINARY';
/** MCP tool names: 1-128 characters of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface GraphSettings {
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
}

export function graphSettings(env: NodeJS.ProcessEnv): GraphSettings {
  return {
    graphCommand: parseCommand('HERMES_MCP_GRAPH_COMMAND', env.HERMES_MCP_GRAPH_COMMAND, [DEFAULT_GRAPH_COMMAND]),
    graphTool: parseGraphTool(env.HERMES_MCP_GRAPH_TOOL),
    graphEnvironment: graphEnvironment(env),
  };
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

export interface HermesInstallSettings {
  /**
   * `HERMES_MCP_HERMES_TOOLS_COMMAND` (split on whitespace, no shell): the command that runs Hermes'
   * own stdio MCP tool server (supervisor/tools/hermes-tools/) instead of
   * `<Hermes' interpreter> -m agent.transports.hermes_tools_mcp_server`; undefined when unset.
   */
  hermesToolsCommand: readonly string[] | undefined;
  /**
   * `HERMES_AGENT_PYTHON`: the Hermes Agent interpreter, when set; otherwise the gateway finds it
   * where Hermes' installers put it (supervisor/platform/hermes/interpreters.ts).
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
}

export function hermesInstallSettings(env: NodeJS.ProcessEnv, hermesHome: string): HermesInstallSettings {
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
