import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { startHonchoStandin, type HonchoStandin } from '../fixtures/honcho-standin.js';
import { startStandin, type Standin } from '../helpers/camofox.js';
import { listeningPort } from '../helpers/gateway.js';
import { TTSC_GRAPH_BIN, TTSC_GRAPH_BINARY, typescriptProject } from '../helpers/graph.js';
import { honchoJson, SEED } from '../helpers/memory.js';
import type { TempDirs } from '../helpers/temp.js';
import { within } from '../helpers/wait.js';

// The gates run as an operator runs them: a real gateway bin (dist/bin/gateway.js) on an
// ephemeral loopback port, and scripts/gates as its own process against that URL.

/**
 * The backends every gate run needs that Hermes cannot provide: Honcho (a hosted memory service;
 * in-process stand-in, seeded), Camofox (a separate browser server; the stand-in drives real
 * Chromium) with its fixture pages, @ttsc/graph as the graph upstream and the real language servers
 * from node_modules/.bin over a trusted root holding a TypeScript project.
 */
export interface GateBackends {
  honcho: HonchoStandin;
  camofox: Standin;
  pages: FixturePages;
  /** The trusted root (HERMES_MCP_ROOTS and HERMES_MCP_LSP_TRUSTED_ROOTS). */
  root: string;
  /** Writes `home`/honcho.json for the Honcho stand-in (Hermes has no writer for it: its honcho plugin reads the file). */
  configureHoncho(home: string): void;
  /** The gateway bin's settings for these backends, every component required. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startGateBackends(dirs: TempDirs): Promise<GateBackends> {
  const honcho = await startHonchoStandin();
  honcho.seed(SEED);
  const pages = await startFixturePages();
  const camofox = await startStandin();
  const root = realpathSync(dirs.make('hmcp-gates-root-'));
  typescriptProject(join(root, 'greeter'));
  return {
    honcho,
    camofox,
    pages,
    root,
    configureHoncho: (home) => writeFileSync(join(home, 'honcho.json'), JSON.stringify(honchoJson(honcho.url))),
    env: {
      PATH: `${join(packageRoot(), 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HERMES_MCP_ROOTS: root,
      HERMES_MCP_LSP_TRUSTED_ROOTS: root,
      HERMES_MCP_OPTIONAL_COMPONENTS: '',
      HERMES_MCP_GRAPH_COMMAND: `${process.execPath} ${TTSC_GRAPH_BIN}`,
      HERMES_MCP_GRAPH_TOOL: 'inspect_typescript_graph',
      TTSC_GRAPH_BINARY,
      CAMOFOX_URL: `http://127.0.0.1:${camofox.port}`,
    },
    async close() {
      await camofox.stop();
      await pages.close();
      await honcho.close();
    },
  };
}

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

export async function startGatewayBin(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(join(packageRoot(), 'dist', 'bin', 'gateway.js'), [], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env, HERMES_MCP_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await within(
    listeningPort(child.stderr!, exited, (line) => (err += `${line}\n`)),
    60_000,
    'the gateway bin to listen',
  ).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  return {
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await within(exited, 30_000, 'the gateway to stop').catch(() => {
        child.kill('SIGKILL');
      });
    },
  };
}

export interface GateReport {
  code: number | null;
  stderr: string;
  report: { ok: boolean; gates: Array<{ id: string; name: string; status: 'pass' | 'fail' | 'skipped'; reason: string }> };
}

/** scripts/gates with --json against `url`; its exit code and parsed report. */
export async function runGates(url: string, args: string[] = []): Promise<GateReport> {
  const child = spawn(process.execPath, [join(packageRoot(), 'dist', 'scripts', 'gates.js'), url, '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await within(new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))), 240_000, 'the gates to finish').catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  let report: GateReport['report'];
  try {
    report = JSON.parse(out) as GateReport['report'];
  } catch {
    throw new Error(`gates printed no JSON report (exit ${code}):\n${out}\n${err}`);
  }
  return { code, stderr: err, report };
}
