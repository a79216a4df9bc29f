import { realpathSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { isUnder, realResolve } from './real-path.js';

// Hermes' file-safety rules (tools/file_tools.py, agent/file_safety.py), re-stated for the gateway.
// Like upstream, these are defence in depth, not a sandbox: the terminal tool runs as the same user.
//
// - read blocks: device paths that hang or never end, Hermes credential stores and internal caches,
//   and project `.env`-type files anywhere;
// - write blocks: system prefixes, docker.sock, the Hermes config/auth/.env files, the credential
//   deny list (ssh keys, cloud CLIs, .netrc …), Hermes session/token state;
// - both: the gateway's own authentication files (database, audit log, passphrase);
// - the cross-profile soft guard (another Hermes profile's skills/plugins/cron/memories, or a
//   sandbox mirror of Hermes state), which `cross_profile: true` opts out of.
// Every check looks at both the lexical absolute path and the real path (symlinks followed), so a
// symlink cannot launder a blocked target. The write-side rules are in write/blocks.ts.

// ---------------------------------------------------------------------------------------------
// Hermes directories

export interface HermesDirs {
  /** Real paths of the active HERMES_HOME and, under a profile, the Hermes root (deduplicated). */
  dirs: string[];
  /** Real path of the Hermes root (the parent of `profiles/`). */
  root: string;
  /** Real path of the active HERMES_HOME. */
  home: string;
  activeProfile: string;
  /** The configured authentication files' spellings (authFileSpellings), protected wherever they are. */
  authFiles: ReadonlySet<string>;
}

/** `<root>/profiles/<name>` is a profile home; anything else is the root itself ("default"). */
export async function hermesDirs(hermesHome: string, authFiles: ReadonlySet<string> = new Set()): Promise<HermesDirs> {
  const home = await realResolve(resolve(hermesHome));
  const parent = dirname(home);
  let root = home;
  let activeProfile = 'default';
  if (basename(parent) === 'profiles' && dirname(parent) !== parent) {
    root = dirname(parent);
    activeProfile = basename(home);
  }
  const dirs = root === home ? [home] : [home, root];
  return { dirs, root, home, activeProfile, authFiles };
}

/** Both spellings of a target that every rule is checked against. */
export interface CheckedPath {
  lexical: string;
  real: string;
}

/** `p.real` when the caller already resolved it (access/index.ts): the checks then judge the path that is opened. */
export async function checkedPath(p: { absolute: string; real?: string }): Promise<CheckedPath> {
  return { lexical: p.absolute, real: p.real ?? (await realResolve(p.absolute)) };
}

/** Whether `test` holds for either spelling of `p`. */
export function either(p: CheckedPath, test: (candidate: string) => boolean): boolean {
  return test(p.lexical) || test(p.real);
}

// ---------------------------------------------------------------------------------------------
// Device paths (read_file)

const BLOCKED_DEVICE_PATHS = new Set([
  '/dev/zero', '/dev/random', '/dev/urandom', '/dev/full',
  '/dev/stdin', '/dev/tty', '/dev/console',
  '/dev/stdout', '/dev/stderr',
  '/dev/fd/0', '/dev/fd/1', '/dev/fd/2',
]);
const PROC_STDIO_SUFFIXES = ['/fd/0', '/fd/1', '/fd/2'];
// Process secrets and memory layout (Hermes issue #4427).
const PROC_SECRET_SUFFIXES = ['/environ', '/cmdline', '/maps', '/smaps', '/smaps_rollup', '/numa_maps', '/mem', '/auxv', '/pagemap'];

export function isBlockedDevicePath(p: string): boolean {
  const n = normalize(p);
  if (BLOCKED_DEVICE_PATHS.has(n)) return true;
  if (n.startsWith('/proc/') && PROC_STDIO_SUFFIXES.some((s) => n.endsWith(s))) return true;
  if (n.startsWith('/proc/') && PROC_SECRET_SUFFIXES.some((s) => n.endsWith(s))) return true;
  return false;
}

/** Hermes `_is_blocked_device`: the literal path, every symlink hop, then the final real path. */
export async function isBlockedDevice(p: CheckedPath): Promise<boolean> {
  if (isBlockedDevicePath(p.lexical)) return true;
  // A path that is its own real path has no symlink in it, so there are no hops to follow (readlink
  // would only fail): one thread-pool round trip fewer on every ordinary read.
  if (p.real === normalize(p.lexical)) return isBlockedDevicePath(p.real);
  const seen = new Set<string>();
  let current = p.lexical;
  for (let i = 0; i < 20; i++) {
    let target: string;
    try {
      target = await readlink(current);
    } catch {
      break;
    }
    target = normalize(isAbsolute(target) ? target : join(dirname(current), target));
    if (isBlockedDevicePath(target)) return true;
    if (seen.has(target)) break;
    seen.add(target);
    current = target;
  }
  return isBlockedDevicePath(p.real);
}

export function deviceError(input: string): GatewayError {
  return new GatewayError(
    ErrorCode.FILE_BLOCKED,
    `Cannot read '${input}': this is a device file that would block or produce infinite output.`,
    { reason: 'device' },
  );
}

// ---------------------------------------------------------------------------------------------
// Read blocks (agent/file_safety.get_read_block_error)

const CREDENTIAL_FILE_NAMES = [
  'auth.json',
  'auth.lock',
  '.anthropic_oauth.json',
  '.env',
  'webhook_subscriptions.json',
  join('auth', 'google_oauth.json'),
  join('cache', 'bws_cache.json'),
];

/** Secret-bearing project environment files, blocked anywhere on disk (`.env.example` is fine). */
const BLOCKED_PROJECT_ENV_BASENAMES = new Set(['.env', '.env.local', '.env.development', '.env.production', '.env.test', '.env.staging', '.envrc']);

export const NOT_A_BOUNDARY = '(Defense-in-depth — not a security boundary; the terminal tool can still bypass.)';

// ---------------------------------------------------------------------------------------------
// The gateway's own authentication files: its database (with SQLite's -wal/-shm/-journal beside
// it), its audit log (and the rotated copy) and the operator passphrase. A read-scope credential
// must not read them (the passphrase approves any OAuth client), nor any tool write them. Their
// default places under each Hermes directory are known here; the places configured for the
// authentication edge (a passphrase file has no default) reach the tools as configuration.

const AUTH_DATABASE_SUFFIXES = ['', '-wal', '-shm', '-journal'];

/** The authentication edge's files as configured, when authentication is on. */
export interface AuthFilePaths {
  database?: string;
  auditLog?: string;
  passphraseFile?: string;
}

/** Every spelling the rules match of the configured authentication files: as given and with the directory's real path, an auth database also with its -wal/-shm/-journal. */
export function authFileSpellings(files: AuthFilePaths | undefined): ReadonlySet<string> {
  const out = new Set<string>();
  const add = (path: string) => {
    out.add(resolve(path));
    try {
      out.add(join(realpathSync(dirname(resolve(path))), basename(path)));
    } catch {
      // The directory does not exist (yet): the lexical spelling is all there is to match.
    }
  };
  if (files?.database) for (const suffix of AUTH_DATABASE_SUFFIXES) add(files.database + suffix);
  if (files?.auditLog) for (const suffix of ['', '.1']) add(files.auditLog + suffix);
  if (files?.passphraseFile) add(files.passphraseFile);
  return out;
}

/** The gateway's authentication files: the configured ones and their default places under each Hermes directory. */
export function authFiles(dirs: HermesDirs): Set<string> {
  const out = new Set(dirs.authFiles);
  for (const hd of dirs.dirs) {
    for (const suffix of AUTH_DATABASE_SUFFIXES) out.add(join(hd, `gateway-auth.sqlite3${suffix}`));
    for (const suffix of ['', '.1']) out.add(join(hd, 'logs', `gateway-auth-audit.jsonl${suffix}`));
  }
  return out;
}

/** The Hermes read-deny message for `p`, or null when reading it is allowed. */
export function readBlockMessage(p: CheckedPath, input: string, dirs: HermesDirs): string | null {
  for (const hd of dirs.dirs) {
    if (either(p, (c) => isUnder(c, join(hd, 'skills', '.hub')))) {
      return (
        `Access denied: ${input} is an internal Hermes cache file and cannot be read directly to prevent prompt injection. ` +
        'Use the skills_list or skill_view tools instead.'
      );
    }
  }
  for (const hd of dirs.dirs) {
    for (const name of CREDENTIAL_FILE_NAMES) {
      const blocked = join(hd, name);
      if (either(p, (c) => c === blocked)) {
        return (
          `Access denied: ${input} is a Hermes credential store and cannot be read directly. ` +
          `Provider tools consume these credentials through internal channels. ${NOT_A_BOUNDARY}`
        );
      }
    }
  }
  for (const hd of dirs.dirs) {
    const tokens = join(hd, 'mcp-tokens');
    if (either(p, (c) => c === tokens)) {
      return `Access denied: ${input} is the Hermes MCP token directory and cannot be read directly. ${NOT_A_BOUNDARY}`;
    }
    if (either(p, (c) => isUnder(c, tokens))) {
      return `Access denied: ${input} is a Hermes MCP token file and cannot be read directly. ${NOT_A_BOUNDARY}`;
    }
  }
  const auth = authFiles(dirs);
  if (either(p, (c) => auth.has(c))) {
    return `Access denied: ${input} is one of the gateway's authentication files (tokens, approvals, audit or passphrase) and cannot be read by a tool. ${NOT_A_BOUNDARY}`;
  }
  if (either(p, (c) => BLOCKED_PROJECT_ENV_BASENAMES.has(basename(c).toLowerCase()))) {
    return (
      `Access denied: ${input} is a secret-bearing environment file and cannot be read to prevent credential leakage. ` +
      `If you need to check the file structure, read .env.example instead. ${NOT_A_BOUNDARY}`
    );
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Secret-bearing files (agent/redact.py `_is_secret_file_arg`): what read_file and search_files
// show of them is redacted with the assignment passes on (Hermes' `secret_file=True`).

const SHELL_RC_BASENAMES = new Set(['.bashrc', '.bash_profile', '.bash_login', '.profile', '.zshrc', '.zprofile', '.zlogin', '.zshenv']);

function isHermesConfigCopy(name: string): boolean {
  return name === 'config.yaml' || name.startsWith('config.yaml.good.') || name.startsWith('config.yaml.corrupt.');
}

/**
 * An `.env`-type file or a shell rc anywhere, or Hermes' config.yaml (and the backup copies Hermes
 * writes) under a `.hermes` directory or a Hermes home: files whose assignments hold credentials,
 * unlike a project's source or its own config.yaml.
 */
export function isSecretBearingFile(p: CheckedPath, dirs: HermesDirs): boolean {
  return either(p, (c) => {
    const name = basename(c).toLowerCase();
    if (BLOCKED_PROJECT_ENV_BASENAMES.has(name) || SHELL_RC_BASENAMES.has(name)) return true;
    if (!isHermesConfigCopy(name)) return false;
    return c.split(sep).slice(0, -1).includes('.hermes') || dirs.dirs.some((hd) => isUnder(c, hd));
  });
}

// ---------------------------------------------------------------------------------------------
// The read verdict without resolving the Hermes home when no rule about it can apply

/** The names of the files the read rules protect inside a Hermes directory (its credential stores and the gateway's own auth files). */
const HOME_FILE_NAMES = new Set(CREDENTIAL_FILE_NAMES.map((name) => basename(name).toLowerCase()));
/** The gateway auth database (with its -wal/-shm/-journal) and audit log (with its rotated copy) by their default names. */
const HOME_FILE_PREFIXES = ['gateway-auth.sqlite3', 'gateway-auth-audit.jsonl'];
/** The trees the read rules protect inside a Hermes directory. */
const HOME_TREES = [join('skills', '.hub'), 'mcp-tokens'];

/**
 * Whether a rule that depends on where the Hermes directories are could match `c`. Every such rule
 * names a file or tree inside a Hermes directory (readBlockMessage, isSecretBearingFile), so a path
 * with none of those names, as file name (case aside) or as path components, matches none of them
 * wherever the Hermes home is: a superset of the matches, never fewer. A rule added about the Hermes
 * directories must add its names here; tests/tools/files/read-verdict.test.ts holds both to the same answers.
 */
function mayMatchHomeRule(c: string): boolean {
  const name = basename(c).toLowerCase();
  if (HOME_FILE_NAMES.has(name) || isHermesConfigCopy(name) || HOME_FILE_PREFIXES.some((prefix) => name.startsWith(prefix))) return true;
  return HOME_TREES.some((tree) => c.endsWith(sep + tree) || c.includes(sep + tree + sep));
}

/** No Hermes directory: only the rules that hold anywhere on disk apply. */
function noHermesDirs(authFiles: ReadonlySet<string>): HermesDirs {
  return { dirs: [], root: '', home: '', activeProfile: 'default', authFiles };
}

/** Whether `p` may be read (Hermes' read-deny message, or null), and whether it is secret-bearing. */
export interface ReadVerdict {
  blocked: string | null;
  secretFile: boolean;
}

/**
 * readBlockMessage and isSecretBearingFile for one read, with the Hermes home resolved (a realpath
 * per call) only when a rule about it could match either spelling of `p`; otherwise judged by the
 * rules that hold anywhere, which then give the same answers.
 */
export async function readVerdict(p: CheckedPath, input: string, hermesHome: string, authFiles: ReadonlySet<string> = new Set()): Promise<ReadVerdict> {
  const dirs = either(p, mayMatchHomeRule) ? await hermesDirs(hermesHome, authFiles) : noHermesDirs(authFiles);
  return { blocked: readBlockMessage(p, input, dirs), secretFile: isSecretBearingFile(p, dirs) };
}

export function readBlockError(message: string): GatewayError {
  return new GatewayError(ErrorCode.FILE_BLOCKED, message, { reason: 'credential' });
}
