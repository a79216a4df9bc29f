import { execFile, type ExecFileException } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ErrorCode } from '../../shared/errors.js';
import { HERMES_TOOLS_MODULE, type GatewayConfig } from '../platform/config.js';
import { toolServerEnvironment, toolServerInheritance, type ToolServerStartup } from '../tools/hermes-tools/index.js';
import { commandExists } from '../platform/spawning/command-exists.js';
import type { DoctorCheck } from './report.js';

// doctor's `hermes_agent` check: which Hermes Agent the gateway runs against, and what its tool
// server really served. The version is asked of the Hermes interpreter itself (its `hermes_cli`
// package's __version__ and __release_date__, the ones `hermes --version` prints, and the
// installed `hermes-agent` and `mcp` distributions), never of `hermes --version`, which also
// checks for updates over the network. The tool server's part is what the startup recorded: its
// MCP serverInfo (FastMCP reports its server name and the `mcp` package's version there, not
// Hermes'), every tool it listed, and of the allowlisted ones which it exposes and which it lacks.

/** What the interpreter prints: one JSON object. Only reads package metadata; imports nothing of Hermes but hermes_cli/__init__. */
const VERSION_QUERY = [
  'import json, importlib.metadata as m',
  'out = {}',
  'try:',
  '    import hermes_cli',
  '    out["version"] = getattr(hermes_cli, "__version__", None)',
  '    out["release_date"] = getattr(hermes_cli, "__release_date__", None)',
  'except Exception as e:',
  '    out["import_error"] = type(e).__name__ + ": " + str(e)',
  'for d in ("hermes-agent", "mcp"):',
  '    try:',
  '        out[d] = m.version(d)',
  '    except Exception:',
  '        out[d] = None',
  'print(json.dumps(out))',
].join('\n');

/** The answer is a few hundred bytes; anything past this is not it. */
const ANSWER_MAX_BYTES = 64 * 1024;

export interface HermesAgentVersion {
  /** hermes_cli.__version__ */
  version: string;
  releaseDate?: string;
  /** The installed hermes-agent distribution's version (absent for a source tree that was not pip-installed). */
  distribution?: string;
  /** The installed mcp package's version (FastMCP's serverInfo version). */
  mcp?: string;
}

export type VersionAnswer = { ok: true; python: string; facts: HermesAgentVersion } | { ok: false; python: string; code: ErrorCode; reason: string };

/**
 * The interpreter the tool server runs on: argv[0] of a `PYTHON -m agent.transports.hermes_tools_mcp_server`
 * command (the default, or an override of that form), else the configured Hermes interpreter.
 */
export function hermesInterpreter(config: GatewayConfig): string {
  const [argv0, flag, module] = config.hermesToolsCommand;
  return argv0 !== undefined && flag === '-m' && module === HERMES_TOOLS_MODULE ? argv0 : config.hermesAgentPython;
}

/** Asks the Hermes interpreter which Hermes Agent it has, within hermesAgentVersionTimeoutSeconds, in the tool server's cwd and environment. */
export async function askHermesVersion(config: GatewayConfig): Promise<VersionAnswer> {
  const python = hermesInterpreter(config);
  const env: Record<string, string> = { ...toolServerEnvironment(toolServerInheritance(config.inheritedEnvironment), config.hermesHome), PYTHONDONTWRITEBYTECODE: '1' };
  const cwd = existsSync(config.hermesToolsCwd) ? config.hermesToolsCwd : config.hermesHome;
  if (!commandExists(python, env.PATH ?? '', cwd)) {
    return { ok: false, python, code: ErrorCode.HERMES_AGENT_NOT_INSTALLED, reason: `the Hermes interpreter ${python} does not exist or is not executable` };
  }
  const timeoutMs = config.limits.hermesAgentVersionTimeoutSeconds * 1000;
  const answer = await new Promise<{ error?: ExecFileException; stdout: string; stderr: string }>((resolve) => {
    execFile(python, ['-c', VERSION_QUERY], { cwd, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: ANSWER_MAX_BYTES, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ ...(error ? { error } : {}), stdout, stderr }),
    );
  });
  if (answer.error?.killed) {
    return { ok: false, python, code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: `${python} did not say which Hermes Agent it has within ${timeoutMs / 1000} s (hermesAgentVersionTimeoutSeconds)` };
  }
  if (answer.error) {
    const tail = answer.stderr.trim().split('\n').at(-1) ?? '';
    return { ok: false, python, code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: `${python} failed to answer (${answer.error.code ?? answer.error.message})${tail ? `: ${tail}` : ''}` };
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(answer.stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
  } catch {
    return { ok: false, python, code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: `${python} answered something other than the version query's JSON` };
  }
  const text = (name: string) => (typeof parsed[name] === 'string' && parsed[name] !== '' ? (parsed[name] as string) : undefined);
  const version = text('version');
  if (!version) {
    return { ok: false, python, code: ErrorCode.HERMES_AGENT_NOT_INSTALLED, reason: `${python} has no Hermes Agent (${text('import_error') ?? 'hermes_cli has no __version__'})` };
  }
  const releaseDate = text('release_date');
  const distribution = text('hermes-agent');
  const mcp = text('mcp');
  return { ok: true, python, facts: { version, ...(releaseDate ? { releaseDate } : {}), ...(distribution ? { distribution } : {}), ...(mcp ? { mcp } : {}) } };
}

/** "Hermes Agent 0.19.0 (2026.7.20)", with the distribution's version where it differs. */
function describeVersion(facts: HermesAgentVersion): string {
  const dist = facts.distribution && facts.distribution !== facts.version ? `, hermes-agent distribution ${facts.distribution}` : facts.distribution ? '' : ', not pip-installed';
  return `Hermes Agent ${facts.version}${facts.releaseDate ? ` (${facts.releaseDate})` : ''}${dist}`;
}

/** The tool server as the startup found it. */
function describeToolServer(startup: ToolServerStartup, facts: HermesAgentVersion | undefined): string {
  switch (startup.kind) {
    case 'pending':
      return "its tool server has not listed its tools";
    case 'unavailable':
      return `its tool server is ${startup.status === 'not_installed' ? 'not installed' : 'not serving'} (${startup.reason})`;
    case 'listed': {
      const info = startup.server
        ? `serverInfo ${startup.server.name} ${startup.server.version ?? '(no version)'}${startup.server.version && facts?.mcp === startup.server.version ? " (FastMCP's: the mcp package's version, not Hermes')" : ''}`
        : 'no serverInfo';
      const list = (names: readonly string[]) => (names.length > 0 ? names.join(', ') : 'none');
      const unusable = Object.keys(startup.unusable);
      return `its tool server (${info}) lists ${startup.listed.length} tool(s); of the allowlisted ones it exposes ${list(startup.served)}, lacks ${list(startup.missing)}${unusable.length > 0 ? `, and serves ${list(unusable)} with a schema the gateway cannot use` : ''}`;
    }
  }
}

/**
 * The check: ok when the interpreter names its Hermes Agent and the tool server listed its tools;
 * otherwise a failure where the tool server is required, a warning where it is declared optional
 * (or where only the version is unknown: a HERMES_MCP_HERMES_TOOLS_COMMAND that is not a Hermes
 * interpreter, with the tool server serving).
 */
export function hermesAgentCheck(config: GatewayConfig, answer: VersionAnswer, startup: ToolServerStartup): DoctorCheck {
  const name = 'hermes_agent';
  const optional = config.optionalComponents.has('hermes_tools');
  const server = describeToolServer(startup, answer.ok ? answer.facts : undefined);
  if (answer.ok) {
    const reason = `${describeVersion(answer.facts)} at ${answer.python}; ${server}`;
    if (startup.kind === 'listed') return { name, level: 'ok', reason };
    return { name, level: optional ? 'warn' : 'fail', reason, fix: 'see hermes_tools' };
  }
  const reason = `${answer.code}: ${answer.reason}; ${server}`;
  const fix = answer.code === ErrorCode.HERMES_AGENT_NOT_INSTALLED
    ? `install Hermes Agent (pip install hermes-agent, or Hermes' installer, which makes $HERMES_HOME/hermes-agent/venv), or set HERMES_AGENT_PYTHON to its interpreter and HERMES_AGENT_SRC to its source directory`
    : `run ${answer.python} -c "import hermes_cli; print(hermes_cli.__version__)" to see what fails, or set HERMES_AGENT_PYTHON to a working Hermes interpreter`;
  if (startup.kind === 'listed') return { name, level: 'warn', reason, fix };
  return { name, level: optional ? 'warn' : 'fail', reason, fix };
}
