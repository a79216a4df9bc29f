import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../../shared/package-root.js';
import { descendantsOf, processIsAlive, processStartTime } from '../../shared/proc.js';
import { within } from './wait.js';

// The Camofox-compatible stand-in (tests/fixtures/camofox-standin.ts) as a real child process, a
// plain HTTP client for it, and validators for its answers from Camofox' own OpenAPI document.

const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;

export interface StandinReply {
  status: number;
  contentType: string;
  headers: Headers;
  /** The parsed JSON body (undefined for other content types). */
  json: unknown;
  bytes: Buffer;
}

export interface Standin {
  child: ChildProcess;
  port: number;
  /** Everything it wrote to stdout (should be its port line only). */
  stdout(): string;
  stderr(): string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<StandinReply>;
  /** Its live descendants (Chromium and its helpers), each with its start time. */
  descendants(): Array<{ pid: number; startTime: string }>;
  /**
   * Sends `signal`, waits for the exit, and reports which of its descendants from just before were
   * still alive a second later (then SIGKILLs those, and the stand-in itself if it hung).
   */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; survivors: number[] }>;
}

export async function startStandin(env: Record<string, string> = {}): Promise<Standin> {
  const script = join(packageRoot(), 'dist', 'tests', 'fixtures', 'camofox-standin.js');
  const child = spawn(process.execPath, [script, '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const port = await within(
    new Promise<number>((resolve, reject) => {
      const check = () => {
        if (out.includes('\n')) resolve(Number(out.split('\n')[0]));
      };
      child.stdout!.on('data', check);
      void exited.then(({ code, signal }) => reject(new Error(`camofox-standin exited (${code ?? signal}) before listening: ${err}`)));
    }),
    30_000,
    'the camofox stand-in to print its port',
  );
  let survivors: number[] = [];
  const descendants = () => descendantsOf(child.pid!).flatMap((pid) => {
    const startTime = processStartTime(pid);
    return startTime ? [{ pid, startTime }] : [];
  });
  return {
    child,
    port,
    stdout: () => out,
    stderr: () => err,
    descendants,
    async call(method, path, body, headers = {}) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      const contentType = res.headers.get('content-type') ?? '';
      return { status: res.status, contentType, headers: res.headers, bytes, json: contentType.includes('json') ? JSON.parse(bytes.toString('utf8')) : undefined };
    },
    async stop(signal = 'SIGTERM') {
      const tree = descendants();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      let result: { code: number | null; signal: NodeJS.Signals | null };
      try {
        result = await within(exited, 15_000, `the camofox stand-in to exit on ${signal}`);
      } catch (e) {
        child.kill('SIGKILL');
        throw e;
      } finally {
        // what outlives it by more than a moment is a leak; record it, then clean it up
        const alive = () => tree.filter((p) => processIsAlive(p.pid, p.startTime)).map((p) => p.pid);
        const end = Date.now() + 1000;
        while (alive().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        survivors = alive();
        for (const pid of survivors) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      return { ...result, survivors };
    },
  };
}

/** Validators for the responses documented in tests/fixtures/camofox/openapi.json. */
export function camofoxContract(): { validate(path: string, method: string, status: number, body: unknown): string | null; documentedKeys(path: string, method: string, status: number): string[] } {
  const doc = JSON.parse(readFileSync(join(packageRoot(), 'tests', 'fixtures', 'camofox', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }> }>> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'camofox');
  const compiled = new Map<string, ValidateFunction>();
  const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const documented = (path: string, method: string, status: number) => {
    const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
    if (!response?.content?.['application/json']) throw new Error(`openapi.json documents no JSON ${status} for ${method} ${path}`);
    return response.content['application/json'].schema ?? {};
  };
  return {
    validate(path, method, status, body) {
      documented(path, method, status);
      const ref = `camofox#/paths/${escape(path)}/${method.toLowerCase()}/responses/${status}/content/${escape('application/json')}/schema`;
      let v = compiled.get(ref);
      if (!v) compiled.set(ref, (v = ajv.compile({ $ref: ref })));
      return v(body) ? null : ajv.errorsText(v.errors);
    },
    documentedKeys: (path, method, status) => Object.keys(documented(path, method, status).properties ?? {}),
  };
}

/** True when `bytes` is a PNG; its width and height from the IHDR chunk. */
export function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
