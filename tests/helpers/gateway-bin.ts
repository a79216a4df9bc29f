import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { waitFor } from './wait.js';

// The real `hermes-mcp-gateway` bin as a child process on a free loopback port, with exactly the
// environment given (the test runner's own never leaks in). stop() sends SIGTERM, as systemd and
// Ctrl-C do, and returns what it wrote: the log is buffered, so it is complete only once it exited.

export interface BinGateway {
  url: string;
  pid: number;
  /** SIGTERM, then the exit code and everything it wrote (the log lines parsed). */
  stop(): Promise<{ code: number | null; stderr: string; logs: Array<Record<string, unknown>> }>;
}

/** A port nothing listens on now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startGatewayBin(main: string, env: Record<string, string>, options: { cwd?: string } = {}): Promise<BinGateway> {
  const port = await freePort();
  const child = spawn(process.execPath, [main], { env: { ...env, HERMES_MCP_PORT: String(port) }, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      if (gone) throw new Error(`the gateway exited before it answered:\n${stderr}`);
      return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    }, 30_000, 'the gateway bin to answer /healthz');
  } catch (e) {
    child.kill('SIGKILL');
    await exited;
    throw e;
  }
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
