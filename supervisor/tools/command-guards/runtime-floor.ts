import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { interpreterCandidates, type InterpreterSettings } from '../../platform/hermes/locate.js';
import { isExecutableFile } from '../../platform/spawning/command-exists.js';
import { basename } from './command-words.js';
import { shellTokens } from './shell-tokens.js';

// Hermes' runtime self-protection (agent/runtime_self_protection.py command_deletes_runtime, after
// 0.19, applied by tools/approval.py _floor_block right after the hardline patterns): a command that
// deletes the interpreter Hermes runs on, its virtualenv, the base interpreter that venv depends on
// or the uv-managed install holding it is always refused, as "recursive/any delete of <what>". The
// next start of Hermes would fail before any tool could repair it. The gateway protects the
// interpreters it would run Hermes with (every existing candidate of locate.ts), described as
// Hermes describes them.

/** A path the floor protects, and how Hermes describes it. */
export interface ProtectedPath {
  path: string;
  description: string;
}

/** What the floor needs to read a path the way the shell would: the home `~` is, variables for `$NAME`, the directory relative paths start in. */
export interface PathContext {
  userHome: string;
  env: Readonly<Record<string, string>>;
  /** The working directory of the command, when the caller knows it; without one, relative paths are not judged. */
  cwd?: string;
}

/** `path` with symbolic links resolved as far as it exists (Python's non-strict os.path.realpath). */
function realpathLenient(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.push(existing.slice(parent.length).replace(/^\//, ''));
      existing = parent;
    }
  }
}

const UV_INSTALL_DIR = /^(?<root>.*[/\\](?:uv[/\\])?python[/\\]cpython-(?<version>\d+(?:\.\d+)*)(?:[-_][^/\\]*)?)(?:[/\\].*)?$/i;

/** The `home =` directory of a venv's pyvenv.cfg. */
function pyvenvHome(prefix: string): string {
  try {
    for (const line of readFileSync(join(prefix, 'pyvenv.cfg'), 'utf8').split(/\r?\n/)) {
      const eq = line.indexOf('=');
      if (eq >= 0 && line.slice(0, eq).trim().toLowerCase() === 'home') return line.slice(eq + 1).trim();
    }
  } catch {
    // not a venv
  }
  return '';
}

/**
 * The paths Hermes' floor protects when it runs on the interpreter `python` (its sys.executable):
 * the interpreter, its venv (sys.prefix), the base interpreter directory of pyvenv.cfg (else the
 * interpreter itself) and a uv-managed install holding that base (_protected_snapshot).
 */
export function protectedRuntimeOf(python: string): ProtectedPath[] {
  const out: ProtectedPath[] = [];
  const exe = realpathLenient(python);
  out.push({ path: exe, description: 'the Python interpreter this Hermes runtime is running from' });
  const venv = dirname(dirname(resolve(python)));
  const isVenv = existsSync(join(venv, 'pyvenv.cfg'));
  const prefix = realpathLenient(isVenv ? venv : dirname(dirname(exe)));
  if (prefix !== exe) out.push({ path: prefix, description: "this Hermes runtime's own virtualenv" });
  const home = isVenv ? pyvenvHome(venv) : '';
  const base = home ? realpathLenient(home) : exe;
  out.push({ path: base, description: 'the base interpreter this Hermes venv depends on' });
  const uv = UV_INSTALL_DIR.exec(base);
  if (uv?.groups) out.push({ path: realpathLenient(uv.groups.root!), description: `the uv-managed Python install this Hermes venv depends on (${uv.groups.version})` });
  return out;
}

/** The paths protected for every interpreter the gateway would run Hermes with (locate.ts candidates that exist). */
export function hermesRuntimePaths(config: InterpreterSettings): ProtectedPath[] {
  const out: ProtectedPath[] = [];
  for (const { python } of interpreterCandidates(config)) if (isExecutableFile(python)) out.push(...protectedRuntimeOf(python));
  return out;
}

/** Commands that delete their operands (Hermes' _DELETING_COMMANDS) and the prefixes read through (_COMMAND_PREFIXES). */
const DELETING = new Set(['rm', 'rmdir', 'rd', 'del', 'erase', 'remove-item', 'ri']);
const PREFIXES = new Set(['sudo', 'command', 'nohup', 'exec', 'env', 'nice', 'time']);
const FIND_DELETE = /(?:^|\s)-(?:delete|exec\s+rm\b)/i;

/** A word as a path the way the shell would expand it (~, $HOME, $NAME), or undefined when it cannot be placed. */
function placePath(word: string, ctx: PathContext): string | undefined {
  let path = word.trim();
  if (path.length >= 2 && path[0] === path.at(-1) && (path[0] === '"' || path[0] === "'")) path = path.slice(1, -1);
  if (path === '~' || path.startsWith('~/')) path = ctx.userHome + path.slice(1);
  path = path.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (raw, a?: string, b?: string) => {
    const name = (a ?? b)!;
    return name === 'HOME' ? ctx.userHome : (ctx.env[name] ?? raw);
  });
  if (path === '') return undefined;
  if (!isAbsolute(path)) {
    if (!ctx.cwd) return undefined;
    path = join(ctx.cwd, path);
  }
  return realpathLenient(path);
}

/** The same path, or one inside the other (Hermes' _overlaps: `/` itself overlaps nothing but `/`). */
const overlaps = (a: string, b: string) => a === b || a.startsWith(b + '/') || b.startsWith(a + '/');

function protectedBy(word: string, paths: readonly ProtectedPath[], ctx: PathContext): string | undefined {
  const path = placePath(word, ctx);
  if (!path) return undefined;
  return paths.find((p) => overlaps(path, p.path))?.description;
}

/** `uv python uninstall <spec>` naming the running base's version, its directory or all. */
function uvUninstallTarget(words: string[], paths: readonly ProtectedPath[]): string | undefined {
  const lower = words.map((w) => w.toLowerCase());
  const at = lower.indexOf('python');
  const uninstall = at < 0 ? -1 : lower.indexOf('uninstall', at + 1);
  if (uninstall < 0) return undefined;
  for (const p of paths.filter((x) => x.description.startsWith('the uv-managed Python install'))) {
    const version = UV_INSTALL_DIR.exec(p.path)?.groups?.version ?? '';
    const rootName = basename(p.path).toLowerCase();
    for (const raw of words.slice(uninstall + 1)) {
      const spec = raw.trim().toLowerCase();
      if (!spec) continue;
      if (spec === '--all' || spec === '-a' || spec === 'all') return p.description;
      if (spec.startsWith('-')) continue;
      if (rootName.startsWith(spec) || spec === version || (version.startsWith(spec) && version[spec.length] === '.')) return p.description;
    }
  }
  return undefined;
}

/** The description of a protected runtime path `command` would delete (Hermes' command_deletes_runtime), else undefined. */
export function commandDeletesRuntime(command: string, paths: readonly ProtectedPath[], ctx: PathContext): string | undefined {
  if (paths.length === 0 || command.trim() === '') return undefined;
  for (const segment of command.split(/\n|&&|\|\||[;|]/)) {
    let words = shellTokens(segment) ?? segment.split(/\s+/).filter(Boolean);
    while (words.length > 0 && (PREFIXES.has(words[0]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!))) words = words.slice(1);
    if (words.length === 0) continue;
    const name = basename(words[0]!).toLowerCase();
    if (name === 'uv') {
      const hit = uvUninstallTarget(words, paths);
      if (hit) return hit;
      continue;
    }
    const finding = name === 'find' && FIND_DELETE.test(segment);
    if (!finding && !DELETING.has(name)) continue;
    for (const word of words.slice(1)) {
      if (word.startsWith('-')) continue;
      const hit = protectedBy(word, paths, ctx);
      if (hit) return hit;
    }
  }
  return undefined;
}
