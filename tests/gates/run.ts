import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { listeningPort } from '../helpers/gateway.js';
import { within } from '../helpers/wait.js';

// The gates run as an operator runs them: a real gateway bin (dist/supervisor/main.js) on an
// ephemeral loopback port, and scripts/gates as its own process against that URL.

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

export async function startGatewayBin(env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(join(packageRoot(), 'dist', 'supervisor', 'main.js'), [], {
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
