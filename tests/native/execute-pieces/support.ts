// Shared helpers for the execute_code piece tests (not a test file itself).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// This file runs as dist/tests/native/execute-pieces/support.js; the .py files are not compiled,
// so they are read from the source tree at the repository root.
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const RUNNER_PY = join(REPO_ROOT, 'workers/execute/runner.py');
export const PYTHON = '/usr/bin/python3';

export function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'hx-rpc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface RunnerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has exited and its pipes are drained. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** Write the script and close stdin. */
  send(code: string): void;
}

export function startRunner(env: Record<string, string>, cwd: string, timeoutMs = 30_000): RunnerProcess {
  const child = spawn(PYTHON, [RUNNER_PY], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolveDone, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolveDone({ code, signal, stdout, stderr });
      });
    },
  );
  return {
    child,
    done,
    send(code: string) {
      child.stdin.end(code, 'utf8');
    },
  };
}

/** A raw NDJSON client: send lines, read response lines. */
export class LineClient {
  private buffer = '';
  private readonly lines: string[] = [];
  private waiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buffer += d;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(path: string): Promise<LineClient> {
    return new Promise((resolveOpen, reject) => {
      const socket = connect(path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolveOpen(new LineClient(socket));
      });
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Next response line, or null once the connection has closed with nothing left. */
  async next(timeoutMs = 5_000): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a response line');
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
    return this.lines.shift()!;
  }

  async request(payload: unknown): Promise<unknown> {
    this.write(JSON.stringify(payload) + '\n');
    const line = await this.next();
    if (line === null) throw new Error('connection closed before a response');
    return JSON.parse(line);
  }

  /** Resolves once the server has closed the connection. */
  async waitClosed(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('connection still open');
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
