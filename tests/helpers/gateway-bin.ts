import { spawn } from 'node:child_process';
import { within } from './wait.js';

// The real `hermes-mcp-gateway` bin as a child process on an ephemeral loopback port, with exactly the
// environment given (the test runner's own never leaks in). stop() sends SIGTERM, as systemd and
// Ctrl-C do, and returns what it wrote: the log is buffered, so it is complete only once it exited.

export interface BinGateway {
  url: string;
  pid: number;
  /** SIGTERM, then the exit code and everything it wrote (the log lines parsed). */
  stop(): Promise<{ code: number | null; stderr: string; logs: Array<Record<string, unknown>> }>;
}

export async function startGatewayBin(main: string, env: Record<string, string>): Promise<BinGateway> {
  const child = spawn(process.execPath, [main], { env: { ...env, HERMES_MCP_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  child.stdout.on('data', (d: Buffer) => (stderr += d.toString()));
  // The port it was given (HERMES_MCP_PORT=0): from its `listening` line.
  const port = await within(
    new Promise<number>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const listening = /"event":"listening"[^\n]*"port":(\d+)/.exec(stderr);
        if (listening) resolve(Number(listening[1]));
      });
      void exited.then(() => reject(new Error(`the gateway exited before listening:\n${stderr}`)));
    }),
    60_000,
    'the gateway bin to listen',
  ).catch(async (e: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw e;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (!gone) child.kill('SIGTERM');
      const code = await exited;
      const logs = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      return { code, stderr, logs };
    },
  };
}

/** Runs the bin to its exit (a refusal at startup): its exit code and stderr. */
export function runGatewayBin(main: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
