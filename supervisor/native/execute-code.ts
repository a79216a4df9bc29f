import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { approvalPolicy, checkCommand } from '../../shared/approval.js';
import { ErrorCode, GatewayError, isGatewayError } from '../../shared/errors.js';
import { capHeadTail, stripAnsi } from '../../shared/output-cap.js';
import { packageRoot } from '../../shared/package-root.js';
import { redact } from '../../shared/redact.js';
import type { CallContext, ToolDefinition } from '../../shared/tool-types.js';
import type { WorkerProcess } from '../workers/worker-process.js';
import { startRpcServer, type RpcServer } from './execute-rpc.js';
import { shapeTerminalOutput } from './terminal.js';
import { removeDir, type WorkerRuntime } from './worker-runtime.js';

// execute_code: one fresh worker (own PID namespace) per call, never reused, with a 30-second
// deadline that includes queue wait, at most two running at once and a bounded queue (an explicit
// BUSY, never an unbounded wait). One unit (worker + Python blocked on stdin + its RPC socket) is
// kept pre-spawned so a call does not pay interpreter start-up; it still runs exactly one script.

export const RPC_TOOLS = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'] as const;
const RUNNER = join(packageRoot(), 'workers', 'execute', 'runner.py');

/** Dispatches one hermes_tools call made by the script of the call `ctx` belongs to. */
export type RpcDispatch = (tool: string, args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>;

interface Unit {
  worker: WorkerProcess;
  rpc: RpcServer;
  dir: string;
  cwd: string;
  ready: Promise<void>;
  /** The call this unit serves; RPC calls arriving before it is claimed are refused. */
  call?: { ctx: CallContext; deadline: number };
}

export interface ExecuteResult {
  status: 'success' | 'error' | 'timeout' | 'interrupted';
  output: string;
  tool_calls_made: number;
  duration_seconds: number;
  error?: string;
}

export class ExecuteCodePool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private spare?: Unit;
  private preparing = false;
  private closed = false;

  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly dispatch: RpcDispatch,
  ) {
    approvalPolicy(); // a broken policy/dangerous-commands.json fails startup, not the first script
  }

  private async createUnit(cwd: string): Promise<Unit> {
    const { limits } = this.runtime.config;
    const dir = this.runtime.privateDir('exec');
    const token = randomBytes(32).toString('base64url');
    const unit = { dir, cwd } as Unit;
    unit.rpc = await startRpcServer({
      dir,
      token,
      allowed: RPC_TOOLS,
      maxCalls: limits.executeCodeMaxToolCalls,
      dispatch: (tool, args) => {
        if (!unit.call) return Promise.resolve({ error: 'no execute_code call is bound to this socket' });
        return this.dispatchRpc(unit, tool, args);
      },
    });
    unit.worker = this.runtime.spawnWorker('execute-worker', {
      cwd,
      env: {
        // Injected after scrubbing, as Hermes does: the script's RPC endpoint and Python settings.
        HERMES_RPC_SOCKET: unit.rpc.path,
        HERMES_RPC_TOKEN: token,
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONIOENCODING: 'utf-8',
        PYTHONUTF8: '1',
        HERMES_MCP_PYTHON: this.runtime.config.python,
        HERMES_MCP_RUNNER: RUNNER,
        HERMES_MCP_TRANSPORT_MAX_BYTES: String(limits.workerTransportMaxBytes),
        ...(process.env.HERMES_TIMEZONE ? { TZ: process.env.HERMES_TIMEZONE } : {}),
      },
    });
    unit.ready = unit.worker.waitFor((f) => f.type === 'ready').then(() => undefined);
    unit.ready.catch(() => {});
    return unit;
  }

  private async dispatchRpc(unit: Unit, tool: string, args: Record<string, unknown>): Promise<unknown> {
    const call = unit.call!;
    if (tool !== 'terminal') return this.dispatch(tool, args, call.ctx);
    // The approval guard, request-bound: dispatching the script was its one approval, so any
    // command inside it that would need another (dangerous) or may never run (hardline) is denied
    // with Hermes' blocked result, before anything reaches the worker. Nothing is granted for later.
    const verdict = checkCommand(String(args.command ?? ''));
    if (verdict.verdict !== 'allow') return blockedCommandResult(verdict.verdict, verdict.key);
    // hermes_tools.terminal runs inside this call's own namespace, bounded by the call's deadline.
    const remaining = Math.max(1, Math.floor((call.deadline - Date.now()) / 1000));
    const requested = typeof args.timeout === 'number' && args.timeout > 0 ? args.timeout : this.runtime.config.limits.terminalMaxTimeoutSeconds;
    const timeoutSeconds = Math.min(requested, remaining);
    const id = randomUUID();
    const result = unit.worker.waitFor((f) => f.type === 'result' && f.id === id);
    unit.worker.send({
      type: 'exec',
      id,
      command: String(args.command ?? ''),
      cwd: typeof args.workdir === 'string' ? args.workdir : unit.cwd,
      timeoutMs: timeoutSeconds * 1000,
      stateDir: unit.dir,
      maxOutputBytes: this.runtime.config.limits.workerTransportMaxBytes,
    });
    const r = (await result) as unknown as { exitCode: number; timedOut: boolean; output: string; error?: string };
    if (r.error) return { error: r.error };
    const output = shapeTerminalOutput(r.output, this.runtime.config.limits.terminalOutputMaxChars, String(args.command ?? ''));
    return r.timedOut ? { output, exit_code: 124, error: `Command timed out after ${timeoutSeconds} seconds` } : { output, exit_code: r.exitCode, error: null };
  }

  private async destroy(unit: Unit): Promise<void> {
    await unit.worker.kill();
    await unit.rpc.close();
    removeDir(unit.dir);
  }

  /** Keeps one unused unit ready for the default working directory. */
  prewarm(): void {
    // One spare at most, and one being prepared at most: a second would overwrite the first and
    // leave its worker running unowned.
    if (this.closed || this.spare || this.preparing) return;
    this.preparing = true;
    void this.createUnit(this.runtime.config.terminalCwd).then(
      (unit) => {
        this.preparing = false;
        if (this.closed || this.spare) void this.destroy(unit);
        else this.spare = unit;
      },
      () => {
        this.preparing = false;
      },
    );
  }

  private async acquireSlot(deadline: number, signal: AbortSignal): Promise<'ok' | 'timeout' | 'interrupted'> {
    const { executeCodeConcurrency, executeCodeMaxQueued } = this.runtime.config.limits;
    if (this.running < executeCodeConcurrency) {
      this.running++;
      return 'ok';
    }
    if (this.waiting.length >= executeCodeMaxQueued) {
      throw new GatewayError(ErrorCode.BUSY, `execute_code is busy: ${executeCodeConcurrency} running and ${executeCodeMaxQueued} waiting; retry shortly`);
    }
    return new Promise((resolve) => {
      const wake = () => {
        cleanup();
        this.running++;
        resolve('ok');
      };
      const giveUp = (why: 'timeout' | 'interrupted') => {
        cleanup();
        resolve(why);
      };
      const timer = setTimeout(() => giveUp('timeout'), Math.max(0, deadline - Date.now()));
      const onAbort = () => giveUp('interrupted');
      signal.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const i = this.waiting.indexOf(wake);
        if (i >= 0) this.waiting.splice(i, 1);
      };
      this.waiting.push(wake);
    });
  }

  private releaseSlot(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  async run(code: string, ctx: CallContext, cwd: string): Promise<ExecuteResult> {
    const started = Date.now();
    const deadlineSeconds = this.runtime.config.limits.executeCodeDeadlineSeconds;
    const deadline = started + deadlineSeconds * 1000;
    const elapsed = () => Math.round((Date.now() - started) / 10) / 100;
    let slot = await this.acquireSlot(deadline, ctx.signal);
    // A slot freed in the same instant the deadline passed is no use: never start a script late.
    if (slot === 'ok' && Date.now() >= deadline) {
      this.releaseSlot();
      slot = 'timeout';
    }
    if (slot !== 'ok') {
      return slot === 'timeout'
        ? { status: 'timeout', output: `⏰ Script timed out after ${deadlineSeconds}s waiting for a free worker and never ran.`, tool_calls_made: 0, duration_seconds: elapsed() }
        : { status: 'interrupted', output: '', tool_calls_made: 0, duration_seconds: elapsed() };
    }
    let unit: Unit | undefined;
    try {
      if (this.spare && this.spare.cwd === cwd && this.spare.worker.alive) {
        unit = this.spare;
        this.spare = undefined;
      } else {
        unit = await this.createUnit(cwd);
      }
      unit.call = { ctx, deadline };
      await unit.ready;
      const u = unit;
      const done = u.worker.waitFor((f) => f.type === 'done');
      done.catch(() => {});
      u.worker.send({ type: 'run', code });
      const outcome = await new Promise<{ kind: 'done'; frame: Record<string, unknown> } | { kind: 'timeout' | 'interrupted' | 'crashed' }>((resolve) => {
        const timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.max(0, deadline - Date.now()));
        const onAbort = () => resolve({ kind: 'interrupted' });
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        done.then(
          (frame) => resolve({ kind: 'done', frame }),
          () => resolve({ kind: 'crashed' }),
        );
        void done.finally(() => {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
        }).catch(() => {});
      });
      const calls = u.rpc.callsMade();
      if (outcome.kind !== 'done') {
        await u.worker.kill(); // the namespace and everything the script started die here
        if (outcome.kind === 'timeout') {
          return { status: 'timeout', output: `⏰ Script timed out after ${deadlineSeconds}s and was killed.`, tool_calls_made: calls, duration_seconds: elapsed() };
        }
        if (outcome.kind === 'interrupted') return { status: 'interrupted', output: '', tool_calls_made: calls, duration_seconds: elapsed() };
        return { status: 'error', output: '', tool_calls_made: calls, duration_seconds: elapsed(), error: `execute_code worker failed (${u.worker.describeExit()})` };
      }
      return this.shape(outcome.frame, calls, elapsed());
    } finally {
      // The answer does not wait for the teardown (the worker is already ending its namespace),
      // but the slot is only handed on once it is done, so the concurrency bound stays true.
      // The next spare is prepared only now: spawning it during this call would compete with the
      // script for the CPU.
      const u = unit;
      const after = () => {
        this.releaseSlot();
        this.prewarm();
      };
      if (u) void this.destroy(u).finally(after);
      else after();
    }
  }

  /** Hermes' result: stdout capped 40/60 at 50,000, ANSI stripped, redacted; stderr on failure. */
  private shape(frame: Record<string, unknown>, calls: number, duration: number): ExecuteResult {
    const { executeCodeStdoutMaxBytes } = this.runtime.config.limits;
    const stdout = redact(stripAnsi(capHeadTail(String(frame.stdout ?? ''), executeCodeStdoutMaxBytes, 0.4, { thousands: true }).text), { codeFile: true });
    const exitCode = frame.exitCode as number | null;
    if (exitCode === 0) return { status: 'success', output: stdout, tool_calls_made: calls, duration_seconds: duration };
    const stderr = redact(stripAnsi(String(frame.stderr ?? '').slice(0, 10_000)), { codeFile: true });
    return {
      status: 'error',
      output: stderr ? `${stdout}\n--- stderr ---\n${stderr}` : stdout,
      tool_calls_made: calls,
      duration_seconds: duration,
      error: stderr || `script exited with ${exitCode === null ? `signal ${String(frame.signal)}` : `status ${exitCode}`}`,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const spare = this.spare;
    this.spare = undefined;
    if (spare) await this.destroy(spare);
  }
}

export function executeCodeTool(pool: ExecuteCodePool, runtime: WorkerRuntime, cwdFor: (ownerId: string) => string): ToolDefinition {
  const { limits } = runtime.config;
  return {
    name: 'execute_code',
    description: `Run a Python script in a fresh, isolated worker (interpreter state never persists; \`reset\` is accepted and ignored). Import tools with \`from hermes_tools import terminal, read_file, write_file, search_files, patch, web_search, web_extract\` (at most ${limits.executeCodeMaxToolCalls} calls; terminal is foreground only, and a command Hermes would ask approval for, e.g. rm -r, git reset --hard or curl | sh, is denied with status "blocked": the script was the one approval). Print the final result. Limits: ${limits.executeCodeDeadlineSeconds} s total including queue wait, ${limits.executeCodeConcurrency} scripts at once, ${limits.executeCodeMaxBytes} bytes of code, ${limits.executeCodeStdoutMaxBytes} characters of stdout kept (head and tail). The script runs with the service user's privileges: this is not a sandbox.`,
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 1, description: 'Python source.' },
        reset: { type: 'boolean', description: 'Accepted for compatibility; every call already starts fresh.' },
      },
      required: ['code'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
    native: true,
    async handler(args, ctx) {
      const code = args.code as string;
      const bytes = Buffer.byteLength(code, 'utf8');
      if (bytes > limits.executeCodeMaxBytes) {
        throw new GatewayError(ErrorCode.CODE_TOO_LARGE, `code is ${bytes} bytes of UTF-8; execute_code accepts at most ${limits.executeCodeMaxBytes}`);
      }
      // A configured but broken resource policy fails closed: no short worker starts.
      if (runtime.resources.mode === 'failed') throw new GatewayError(ErrorCode.RESOURCE_POLICY_INVALID, `execute_code refused: ${runtime.resources.reason}`);
      const result = await pool.run(code, ctx, cwdFor(ctx.owner.id));
      return { structured: { ...result } };
    },
  };
}

/** Hermes' terminal result for a command its approval guard refused (`status: "blocked"`). */
export function blockedCommandResult(verdict: 'hardline' | 'dangerous', key: string) {
  const why =
    verdict === 'hardline'
      ? 'it is on the unconditional (hardline) blocklist, so it cannot run through this gateway at all. Do not retry or rephrase it; if it is really needed, the user has to run it outside the agent.'
      : 'the script itself was the one approval. Do not retry or rephrase it inside execute_code; if it is needed, run it with the direct terminal tool, where the user is asked to confirm.';
  return { output: '', exit_code: -1, error: `Command denied: ${key}. execute_code scripts get no further approvals; ${why}`, status: 'blocked' };
}

/** Turns a thrown error from an RPC-dispatched tool into the `{error}` shape Hermes stubs expect. */
export function rpcErrorResult(e: unknown): { error: string } {
  return { error: isGatewayError(e) ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e) };
}
