import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, extname, isAbsolute, join } from 'node:path';
import * as v from 'valibot';
import { isExecutableFile } from '../spawning/command-exists.js';

// Which language server handles which file, and where its program is. The gateway never installs
// a server: the defaults are found on PATH, an operator's JSON file (HERMES_MCP_LSP_SERVERS) adds
// servers or replaces a default by name, and a server whose program is missing is reported with
// the exact command that would install it. Each server also names the files that mark a project
// (rootMarkers), so a server runs per project, not per whole root.

export interface LspServerSpec {
  name: string;
  /** argv: the program (a bare name looked up on PATH, or an absolute path) and its arguments. */
  command: readonly string[];
  /** File extensions, with the dot, lower case (`.ts`). */
  extensions: readonly string[];
  /** The LSP languageId per extension; an extension without one uses the server's name. */
  languageId: Readonly<Record<string, string>>;
  /** What the operator runs to install it (shown, never run). */
  install: string;
  /** Sent as `initializationOptions` in `initialize`. */
  initializationOptions?: unknown;
  /** File names that mark a project directory; the nearest one above a file is its server's workspace. */
  rootMarkers: readonly string[];
}

/** The marker of last resort, for every server: a repository without any language's project file. */
const FALLBACK_MARKER = '.git';

export const DEFAULT_LSP_SERVERS: readonly LspServerSpec[] = Object.freeze<LspServerSpec[]>([
  {
    name: 'typescript',
    command: ['typescript-language-server', '--stdio'],
    extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'],
    languageId: { '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'typescriptreact', '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascriptreact' },
    // The server needs TypeScript's tsserver.js, which TypeScript 7 (npm's latest) no longer
    // ships: without the pin, this command installs a server that cannot start. Its 5.x line is the
    // one every supported Node runs (6.x requires Node 22.22.2+) and the one the tests run.
    install: 'npm install -g typescript-language-server@5 typescript@5',
    // Its default ("auto") answers hover and definition from a syntax-only tsserver while the
    // project loads, which cannot follow imports ("import add" instead of the function): every
    // answer here comes from the semantic server. Automatic type acquisition is off: it would run
    // `npm install @types/...` in the background (tsserver's typings installer), and nothing here
    // installs anything.
    initializationOptions: { tsserver: { useSyntaxServer: 'never' }, disableAutomaticTypingAcquisition: true },
    rootMarkers: ['tsconfig.json', 'jsconfig.json', 'package.json'],
  },
  {
    name: 'pyright',
    command: ['pyright-langserver', '--stdio'],
    extensions: ['.py', '.pyi'],
    languageId: { '.py': 'python', '.pyi': 'python' },
    install: 'npm install -g pyright',
    rootMarkers: ['pyproject.toml', 'setup.py', 'setup.cfg', 'pyrightconfig.json'],
  },
]);

const FileName = v.pipe(v.string(), v.regex(/^[^/\0]{1,255}$/, 'a root marker is a file name, without "/"'), v.notValues(['.', '..'], 'a root marker is a file name'));
const Extension = v.pipe(v.string(), v.regex(/^\.[A-Za-z0-9._+-]{1,32}$/, 'an extension starts with a dot, e.g. ".ts"'));
const ServerEntry = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a name is lower-case letters, digits, "-" or "_"')),
  command: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
  extensions: v.pipe(v.array(Extension), v.minLength(1)),
  languageId: v.optional(v.record(Extension, v.pipe(v.string(), v.minLength(1)))),
  install: v.pipe(v.string(), v.minLength(1)),
  initializationOptions: v.optional(v.unknown()),
  rootMarkers: v.optional(v.array(FileName)),
});
const ServersFile = v.strictObject({ servers: v.array(ServerEntry) });

/**
 * The servers in effect: the defaults, then each entry of `file` (if any), which replaces the
 * default of the same name or is added. Throws an Error naming the file and the problem (the
 * caller turns it into a start-up ConfigError: a broken server list is not a state to serve in).
 */
export function loadLspServers(file: string | undefined): LspServerSpec[] {
  const servers = new Map(DEFAULT_LSP_SERVERS.map((s) => [s.name, s] as const));
  if (file === undefined) return [...servers.values()];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`HERMES_MCP_LSP_SERVERS: cannot read ${file} as JSON: ${(e as Error).message}`);
  }
  const parsed = v.safeParse(ServersFile, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    throw new Error(`HERMES_MCP_LSP_SERVERS: ${file}: ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
  }
  for (const entry of parsed.output.servers) {
    const extensions = entry.extensions.map((e) => e.toLowerCase());
    const languageId = Object.fromEntries(Object.entries(entry.languageId ?? {}).map(([e, id]) => [e.toLowerCase(), id]));
    const rootMarkers = entry.rootMarkers ?? [];
    servers.set(entry.name, { name: entry.name, command: entry.command, extensions, languageId, install: entry.install, rootMarkers, ...(entry.initializationOptions !== undefined ? { initializationOptions: entry.initializationOptions } : {}) });
  }
  return [...servers.values()];
}

/** The server for `file` by its extension: the last configured one claiming it (a file entry wins over a default). */
export function serverForFile(servers: readonly LspServerSpec[], file: string): LspServerSpec | undefined {
  const ext = extname(file).toLowerCase();
  return ext === '' ? undefined : [...servers].reverse().find((s) => s.extensions.includes(ext));
}

export function languageIdFor(server: LspServerSpec, file: string): string {
  return server.languageId[extname(file).toLowerCase()] ?? server.name;
}

/**
 * The workspace for `file` (a real path inside `bound`): the nearest directory at or below `bound`
 * holding one of the server's root markers, else the nearest holding `.git`, else `bound` itself.
 * Never above `bound`: that is the trusted, allowed root the server may see.
 */
export function projectWorkspace(server: LspServerSpec, file: string, bound: string): string {
  const nearest = (markers: readonly string[]): string | undefined => {
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      if (markers.some((m) => existsSync(join(dir, m)))) return dir;
      if (dir === bound || dirname(dir) === dir) return undefined;
    }
  };
  return nearest(server.rootMarkers) ?? nearest([FALLBACK_MARKER]) ?? bound;
}

/** The program of `command` as the gateway would start it: an absolute path, or undefined when it is not installed. */
export function findProgram(program: string, searchPath: string): string | undefined {
  if (isAbsolute(program)) return isExecutableFile(program) ? program : undefined;
  // A relative path with a slash would depend on the gateway's cwd: never resolved.
  if (program.includes('/')) return undefined;
  for (const dir of searchPath.split(delimiter)) {
    if (!isAbsolute(dir)) continue; // an empty or relative PATH entry means "the cwd": not trusted either
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
