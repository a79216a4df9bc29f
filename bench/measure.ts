import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

// What the benches that time calls share: percentiles of sorted samples, a sequential sampler with
// warm-up, a modern-era (2026-07-28, sessionless) JSON-RPC POST to an MCP endpoint, tool_call of one
// deferred tool through it, running a command to its end, stopping a child by pid with a bounded
// grace, and numeric settings from the environment.

/** A numeric setting of a bench run from the environment (BENCH_ROUNDS, ...), or its default. */
export const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
export const sorted = (s: number[]) => [...s].sort((a, b) => a - b);
export const ms = (n: number) => `${n.toFixed(2).padStart(7)} ms`;
export const row = (label: string, s: number[]) => `${label.padEnd(50)} n=${String(s.length).padStart(4)}  p50 ${ms(pct(s, 50))}  p99 ${ms(pct(s, 99))}`;
export const verdict = (ok: boolean) => (ok ? 'OK' : 'OVER');
/** A process's resident set size, in MB (0 once it has gone). */
export const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** `rounds` timings of `once` after `warmup` untimed runs, one at a time, sorted; `gapMs` apart. */
export async function sample(warmup: number, rounds: number, once: (i: number) => Promise<void>, gapMs = 0): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < warmup + rounds; i++) {
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    const t0 = performance.now();
    await once(i);
    const dt = performance.now() - t0;
    if (i >= warmup) out.push(dt);
  }
  return sorted(out);
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

let rpcId = 0;
/** One JSON-RPC request; `headers` adds to the MCP ones (e.g. an Authorization). */
export async function post(url: string, method: string, params: Record<string, unknown>, name?: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params: { ...params, _meta: META } }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} answered ${res.status}: ${text.slice(0, 300)}`);
  // A JSON body, or (if the server chose SSE) the last `data:` line.
  const json = text.startsWith('{') ? text : (text.split('\n').filter((l) => l.startsWith('data:')).pop() ?? '').slice(5);
  return JSON.parse(json) as Record<string, unknown>;
}

interface CallResult {
  structuredContent?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

/** tools/call tool_call of one deferred tool; returns its whole result (throws on a tool error). */
export async function toolCallResult(url: string, tool: string, args: Record<string, unknown>, sessionToken?: string): Promise<CallResult> {
  const reply = await post(url, 'tools/call', { name: 'tool_call', arguments: { calls: [{ name: tool, arguments: args }], ...(sessionToken ? { session_token: sessionToken } : {}) } }, 'tool_call');
  const result = reply.result as CallResult | undefined;
  if (!result || result.isError) throw new Error(`${tool} failed: ${JSON.stringify(reply).slice(0, 500)}`);
  return result;
}

/** tools/call tool_call of one deferred tool; returns its structured result (throws on a tool error). */
export async function toolCall(url: string, tool: string, args: Record<string, unknown>, sessionToken?: string): Promise<Record<string, unknown>> {
  return (await toolCallResult(url, tool, args, sessionToken)).structuredContent ?? {};
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
/** Runs `command` to its end; rejects unless it exits 0. */
export function runToExit(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}

export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Runs a bench's `main`, with `cleanup` (stopping everything it started, by pid) on the way out:
 * after main, whatever it threw (exit code 1), and on SIGINT/SIGTERM (exit code 130).
 */
export function runBench(main: () => Promise<void>, cleanup: () => void | Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void Promise.resolve(cleanup()).finally(() => process.exit(130)));
  main()
    .catch((e) => {
      console.error(e);
      process.exitCode = 1;
    })
    .finally(() => cleanup());
}
