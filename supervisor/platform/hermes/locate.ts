import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ErrorCode } from '../../../shared/errors.js';
import type { GatewayConfig } from '../config.js';
import { isExecutableFile } from '../spawning/command-exists.js';
import { hermesEnvironment, hermesInheritance } from './environment.js';
import { interpreterCandidates, realpathOr, type InterpreterSource } from './interpreters.js';
import { HermesRelease, usableVersion } from './release.js';

export { HERMES_TOOLS_MODULE, interpreterCandidates, type InterpreterSettings, type InterpreterSource } from './interpreters.js';

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

export type Located =
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

