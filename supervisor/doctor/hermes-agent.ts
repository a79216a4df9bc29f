import type { GatewayConfig } from '../platform/config.js';
import { describeInstall, installCode } from '../platform/hermes/install-report.js';
import type { HermesInstall } from '../platform/hermes/locate.js';
import { hermesSupport } from '../platform/hermes/release.js';
import type { ToolServerStartup } from '../tools/hermes-tools/index.js';
import type { DoctorCheck } from './report.js';

// doctor's `hermes_agent` check: which Hermes Agent the gateway runs against (as the gateway's
// start finds it, supervisor/platform/hermes/locate.ts: the interpreter, the version and where it
// was read, never `hermes --version`, which also checks for updates over the network), whether the
// gateway supports it, and what its tool server really served: its MCP serverInfo (FastMCP reports
// its server name and the `mcp` package's version there, not Hermes'), every tool it listed, and of
// the allowlisted ones which it exposes and which it lacks.

/** The tool server as the startup found it. */
function describeToolServer(startup: ToolServerStartup, mcp: string | undefined): string {
  switch (startup.kind) {
    case 'pending':
      return "its tool server has not listed its tools";
    case 'unavailable':
      return `its tool server is ${startup.status === 'not_installed' ? 'not installed' : 'not serving'} (${startup.reason})`;
    case 'listed': {
      const info = startup.server
        ? `serverInfo ${startup.server.name} ${startup.server.version ?? '(no version)'}${startup.server.version && mcp === startup.server.version ? " (FastMCP's: the mcp package's version, not Hermes')" : ''}`
        : 'no serverInfo';
      const list = (names: readonly string[]) => (names.length > 0 ? names.join(', ') : 'none');
      const unusable = Object.keys(startup.unusable);
      return `its tool server (${info}) lists ${startup.listed.length} tool(s); of the allowlisted ones it exposes ${list(startup.served)}, lacks ${list(startup.missing)}${unusable.length > 0 ? `, and serves ${list(unusable)} with a schema the gateway cannot use` : ''}`;
    }
  }
}

/**
 * The check: ok when a supported Hermes Agent was found and its tool server listed its tools;
 * otherwise a failure where the tool server is required, a warning where it is declared optional
 * (or where only the version is unknown: a HERMES_MCP_HERMES_TOOLS_COMMAND that is not a Hermes
 * interpreter, with the tool server serving).
 */
export function hermesAgentCheck(config: GatewayConfig, install: HermesInstall, startup: ToolServerStartup): DoctorCheck {
  const name = 'hermes_agent';
  const optional = config.optionalComponents.has('hermes_tools');
  const server = describeToolServer(startup, install.state === 'found' ? install.facts.mcp : undefined);
  const range = hermesSupport().supported;
  if (install.state === 'found') {
    const supported = install.release.supported ? `supported (${range})` : `NOT supported: this gateway supports ${range}`;
    const reason = `${describeInstall(install)}, ${supported}; ${server}`;
    if (!install.release.supported) return { name, level: config.optionalComponents.has('hermes') ? 'warn' : 'fail', reason, fix: 'see hermes' };
    if (startup.kind === 'listed') return { name, level: 'ok', reason };
    return { name, level: optional ? 'warn' : 'fail', reason, fix: 'see hermes_tools' };
  }
  const reason = `${installCode(install)}: ${describeInstall(install)}; ${server}`;
  const fix = install.state === 'not_installed'
    ? `install Hermes Agent (Hermes' installer makes $HERMES_HOME/hermes-agent with its venv), or set HERMES_AGENT_PYTHON to its interpreter and HERMES_AGENT_SRC to its source directory`
    : install.state === 'no_version'
      ? `reinstall Hermes with its installer (which writes its install stamp), or point HERMES_AGENT_PYTHON at a Hermes that says its version`
      : `run ${install.python} -c "import hermes_cli" to see what fails, or set HERMES_AGENT_PYTHON to a working Hermes interpreter`;
  if (startup.kind === 'listed') return { name, level: 'warn', reason, fix };
  return { name, level: optional ? 'warn' : 'fail', reason, fix };
}
