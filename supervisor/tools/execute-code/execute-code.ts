import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { settledWithin } from '../../../shared/settle.js';
import { approvalPolicy, checkCommand, commandContext, denyMessage, type CommandVerdict } from '../command-guards/index.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { BoundedCollector, capHeadTail, stripAnsi } from '../../../shared/output-cap.js';
import { descendantsOf, signalName } from '../../../shared/proc.js';
import type { DoneMessage } from '../../../shared/worker-protocol/execute.js';
import { redactCommandResult } from '../../core/result.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { CallContext, ToolDefinition } from '../../core/tool-types.js';
import { startRefusal } from '../../platform/spawning/resource-policy.js';
import type { CgroupLimit } from '../../platform/spawning/cgroup-limits.js';
import type { ExecuteUnit } from './unit.js';
import { ExecuteUnitSource } from './units.js';
import { startRpcServer, type RpcServer } from './rpc-server.js';
import { foregroundBackgroundGuidance, foregroundOutcome } from '../processes/terminal/index.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { removeDir, type WorkerRuntime } from '../../platform/spawning/worker-runtime.js';

// execute_code: one fresh unit (own PID namespace) per call, never reused, with a 30-second
// deadline that includes queue wait, at most two running at once and a bounded queue (an explicit
// BUSY, never an unbounded wait). A unit is the small Python init of workers/execute/unit.py with
// the script's interpreter already forked and blocked on stdin, plus its own RPC socket and token;
// it is forked by the warm unit zygote where that gives the same guarantees, else spawned
// (tools/execute-code/units.ts).
// As many units as may run at once (executeCodeConcurrency) are kept prepared, and a replacement
// is started the moment a call takes one, not after the call: calls that follow each other closely
// then find a unit ready instead of paying for its start-up. Each still runs exactly one script.

const RPC_TOOLS = ['web_search', 'web_extract', 'read_file', 'write_file', 'search_files', 'patch', 'terminal'] as const;

/** Dispatches one hermes_tools call made by the script of the call `ctx` belongs to. */
export type RpcDispatch = (tool: string, args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>;

interface Unit {
  worker: ExecuteUnit;
  rpc: RpcServer;
  dir: string;
  cwd: string;
  /** Its own cgroup under the direct cgroup fallback of the resource policy. */
  cgroup?: CgroupLimit;
  stdout: BoundedCollector;
  stderr: BoundedCollector;
  /** Both of the script's output pipes reached EOF. */
  drained: Promise<void>;
  /** Settles once the script's interpreter is up and waiting for its code (rejects if it died). */
  ready: Promise<void>;
  /** `ready` has resolved. */
  isReady?: boolean;
  /** The call this unit serves; RPC calls arriving before it is claimed are refused. */
  call?: { ctx: CallContext; deadline: number };
}

/** A prepared (or still preparing) unit nobody has taken yet. */
interface Pooled {
  cwd: string;
  unit: Promise<Unit>;
}

/**
 * After the script's exit, how long its output pipes may stay open (something it started outside
 * the PID namespace still holding them) before the output is taken as it is.
 */
const OUTPUT_DRAIN_GRACE_MS = 50;

interface ExecuteResult {
  status: 'success' | 'error' | 'timeout' | 'interrupted';
  output: string;
  tool_calls_made: number;
  duration_seconds: number;
  error?: string;
}

/**
 * What hermes_tools' signatures follow of the Hermes the gateway fronts, as that Hermes'
 * generate_hermes_tools_module writes them (tools/code_execution_tool.py): read_file's default
 * limit, and whether search_files takes `order`.
 */
export function stubSignatures(release: HermesRelease): Record<string, string> {
  return {
    HERMES_MCP_STUB_READ_FILE_LIMIT: release.has('readFileDefaultLimit2000') ? '2000' : '500',
    ...(release.has('searchFilesOrder') ? { HERMES_MCP_STUB_SEARCH_ORDER: 'discovery' } : {}),
  };
}

export class ExecuteCodePool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly pooled: Pooled[] = [];
  private closed = false;
  /** Forks units from the warm unit zygote, or spawns them where that cannot be done. */
  readonly units: ExecuteUnitSource;

  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly dispatch: RpcDispatch,
    /** The Hermes followed: hermes_tools.terminal's guidance and result fields follow it. */
    private readonly release: HermesRelease = new HermesRelease(undefined),
  ) {
    approvalPolicy(); // a broken policy/dangerous-commands.json fails startup, not the first script
    this.units = new ExecuteUnitSource(runtime, stubSignatures(release));
  }

  private async createUnit(cwd: string): Promise<Unit> {
    const { limits } = this.runtime.config;
    const cgroup = this.runtime.shortWorkerCgroup();
    const dir = this.runtime.privateDir('exec');
    const token = randomBytes(32).toString('base64url');
    const unit = { dir, cwd, ...(cgroup ? { cgroup } : {}) } as Unit;
    try {
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
    } catch (e) {
      cgroup?.remove();
      removeDir(dir);
      throw e;
    }
    // Injected after scrubbing, as Hermes does: the script's RPC endpoint (the Python settings are
    // the unit source's, the same for every unit).
    const worker = await this.units.start({ cwd, env: { HERMES_RPC_SOCKET: unit.rpc.path, HERMES_RPC_TOKEN: token } });
    unit.worker = worker;
    // The script's output, bounded in transit (head + rolling tail) whatever it prints.
    const io = worker.scriptIo;
    io.stdin.on('error', () => {}); // the script may exit before reading its code
    unit.stdout = new BoundedCollector({ maxBytes: limits.workerTransportMaxBytes });
    unit.stderr = new BoundedCollector({ maxBytes: limits.workerTransportMaxBytes });
    io.stdout.on('data', (chunk: Buffer) => unit.stdout.push(chunk));
    io.stderr.on('data', (chunk: Buffer) => unit.stderr.push(chunk));
    const ended = (stream: NodeJS.ReadableStream) => new Promise<void>((resolve) => stream.once('close', () => resolve()));
    unit.drained = Promise.all([ended(io.stdout), ended(io.stderr)]).then(() => undefined);
    unit.ready = worker
      .waitFor((f) => f.type === 'ready')
      .then(() => {
        // Nothing but the init and the script's idle interpreter exists yet: moved in now, every
        // process the script starts is born inside the limited cgroup.
        if (cgroup && worker.pid) for (const pid of [worker.pid, ...descendantsOf(worker.pid)]) cgroup.adopt(pid);
        unit.isReady = true;
      });
    unit.ready.catch(() => {});
    return unit;
  }

  private async dispatchRpc(unit: Unit, tool: string, args: Record<string, unknown>): Promise<unknown> {
    const call = unit.call!;
    if (tool !== 'terminal') return this.dispatch(tool, args, call.ctx);
    // The approval guard, request-bound: dispatching the script was its one approval, so any
    // command inside it that would need another (dangerous) or may never run (hardline) is denied
    // with Hermes' blocked result, before anything reaches the worker. Nothing is granted for later.
    const verdict = checkCommand(String(args.command ?? ''), commandContext(this.runtime.config, typeof args.workdir === 'string' ? args.workdir : unit.cwd));
    if (verdict.verdict !== 'allow') return blockedCommandResult(verdict);
    // Hermes' terminal_tool refuses a foreground command that backgrounds work itself, here too.
    const guidance = foregroundBackgroundGuidance(String(args.command ?? ''), this.release);
    if (guidance) return { output: '', exit_code: -1, error: guidance, status: 'error' };
    // hermes_tools.terminal runs inside this call's own namespace, bounded by the call's deadline.
    const remaining = Math.max(1, Math.floor((call.deadline - Date.now()) / 1000));
    const requested = typeof args.timeout === 'number' && args.timeout > 0 ? args.timeout : this.runtime.config.limits.terminalMaxTimeoutSeconds;
    const timeoutSeconds = Math.min(requested, remaining);
    const startedIn = typeof args.workdir === 'string' ? args.workdir : unit.cwd;
    const r = await unit.worker.request({
      type: 'exec',
      command: String(args.command ?? ''),
      cwd: startedIn,
      ...(this.release.has('terminal-agent-environment') ? { agentEnvironment: true } : {}),
      timeoutMs: timeoutSeconds * 1000,
      stateDir: unit.dir,
      maxOutputBytes: this.runtime.config.limits.workerTransportMaxBytes,
    });
    if ('error' in r) return { error: r.error };
    // Redacted as the terminal tool's result is: this reply to the script is no result the pipeline sees.
    const context = { release: this.release, startedIn, maxTimeoutSeconds: this.runtime.config.limits.executeCodeDeadlineSeconds, hermesHome: this.runtime.config.hermesHome };
    return redactCommandResult(foregroundOutcome(r, String(args.command ?? ''), timeoutSeconds, this.runtime.config.limits.terminalOutputMaxChars, context).structured!);
  }

  private async destroy(unit: Unit): Promise<void> {
    await unit.worker.kill();
    await unit.rpc.close();
    unit.cgroup?.remove();
    // Off the event loop: a unit is torn down per call, often while the next call is answered.
    await rm(unit.dir, { recursive: true, force: true });
  }

  /**
   * Tops the pool up to executeCodeConcurrency units for the default working directory. Nothing is
   * prepared while execute_code would be refused (a broken or unenforceable resource policy).
   */
  prewarm(): void {
    if (this.closed || startRefusal(this.runtime.resources, 'execute_code')) return;
    while (this.pooled.length < this.runtime.config.limits.executeCodeConcurrency) {
      const entry: Pooled = { cwd: this.runtime.config.terminalCwd, unit: this.createUnit(this.runtime.config.terminalCwd) };
      this.pooled.push(entry);
      // A unit that fails to come up, or dies while waiting, leaves the pool (and is not replaced
      // at once: a host that cannot start units must not be made to spin). The next call refills.
      const leave = () => {
        const i = this.pooled.indexOf(entry);
        if (i >= 0) {
          this.pooled.splice(i, 1);
          void entry.unit.then((u) => this.destroy(u), () => {});
        }
      };
      entry.unit.then((u) => {
        u.ready.catch(leave);
        void u.worker.exited.then(leave);
      }, leave);
    }
  }

  /**
   * A unit for one call: a pooled one when there is one for `cwd`, else a new one. A pooled unit
   * already known dead is passed over: when a zygote dies, every unit it held is reported ended at
   * once, but each leaves the pool only when its own exit has settled (its last frames read), and
   * a call may come in between.
   */
  private async take(cwd: string): Promise<Unit> {
    for (let i = this.pooled.findIndex((p) => p.cwd === cwd); i >= 0; i = this.pooled.findIndex((p) => p.cwd === cwd)) {
      const unit = await this.pooled.splice(i, 1)[0]!.unit.catch(() => undefined);
      if (unit?.worker.alive) return unit;
      if (unit) void this.destroy(unit);
    }
    return this.createUnit(cwd);
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
      unit = await this.take(cwd);
      unit.call = { ctx, deadline };
      const u = unit;
      const done = doneFrame(u);
      done.catch(() => {});
      // The code goes in once the interpreter waits for it (at once for a prepared unit), and
      // only then is the taken unit replaced: preparing the next one must not delay this script.
      if (u.isReady) u.worker.scriptIo.stdin.end(code);
      else u.ready.then(() => u.worker.scriptIo.stdin.end(code), () => {});
      this.prewarm();
      type Outcome = { kind: 'done'; frame: DoneMessage } | { kind: 'timeout' } | { kind: 'interrupted' } | { kind: 'crashed'; why: string };
      const outcome = await new Promise<Outcome>((resolve) => {
        const timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.max(0, deadline - Date.now()));
        const onAbort = () => resolve({ kind: 'interrupted' });
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        u.ready.catch((e: Error) => resolve({ kind: 'crashed', why: u.worker.alive ? e.message : u.worker.describeExit() }));
        done.then(
          (frame) => resolve({ kind: 'done', frame }),
          () => resolve({ kind: 'crashed', why: u.worker.describeExit() }),
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
        return { status: 'error', output: '', tool_calls_made: calls, duration_seconds: elapsed(), error: `execute_code worker failed (${outcome.why})` };
      }
      await settledWithin(u.drained, OUTPUT_DRAIN_GRACE_MS);
      const signal = typeof outcome.frame.signal === 'number' ? (signalName(outcome.frame.signal) ?? `signal ${outcome.frame.signal}`) : null;
      const stdout = u.stdout.result({ thousands: true });
      const stderr = u.stderr.result({ thousands: true });
      return this.shape({ exitCode: outcome.frame.exitCode ?? null, signal, stdout: stdout.text, stderr: stderr.text }, calls, elapsed());
    } finally {
      // The answer does not wait for the teardown (the unit is already ending its namespace), but
      // the slot is only handed on once it is done, so the concurrency bound stays true. The
      // replacement unit was started when this one was taken.
      const u = unit;
      if (u) void this.destroy(u).finally(() => this.releaseSlot());
      else this.releaseSlot();
    }
  }

  /** Hermes' result: stdout capped 40/60 at 50,000, ANSI stripped; stderr on failure (redacted as code by the pipeline). */
  private shape(frame: Record<string, unknown>, calls: number, duration: number): ExecuteResult {
    const { executeCodeStdoutMaxBytes } = this.runtime.config.limits;
    const stdout = stripAnsi(capHeadTail(String(frame.stdout ?? ''), executeCodeStdoutMaxBytes, 0.4, { thousands: true }).text);
    const exitCode = frame.exitCode as number | null;
    if (exitCode === 0) return { status: 'success', output: stdout, tool_calls_made: calls, duration_seconds: duration };
    const stderr = stripAnsi(String(frame.stderr ?? '').slice(0, 10_000));
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
    const pooled = this.pooled.splice(0);
    await Promise.all(pooled.map((p) => p.unit.then((u) => this.destroy(u), () => {})));
    await this.units.close();
  }
}

export function executeCodeTool(pool: ExecuteCodePool, runtime: WorkerRuntime, cwdFor: (ownerId: string) => string, catalogued: (name: string) => boolean = () => false): ToolDefinition {
  const { limits } = runtime.config;
  // Hermes' web tools are offered to scripts only when its tool server serves them here.
  const web = ['web_search', 'web_extract'].filter(catalogued);
  const webNote = web.length > 0 ? `; ${web.join(' and ')} ${web.length > 1 ? 'are' : 'is'} Hermes' own, through its tool server` : '';
  // Hermes' dispatch coercion (supervisor/core/hermes-args.ts): `reset: "true"` is a boolean, as there.
  return withHermesArgumentRepair<ToolDefinition>({
    name: 'execute_code',
    description: `Run a Python script in a fresh, isolated worker (interpreter state never persists; \`reset\` is accepted and ignored). Import tools with \`from hermes_tools import ${['terminal', 'read_file', 'write_file', 'search_files', 'patch', ...web].join(', ')}\` (at most ${limits.executeCodeMaxToolCalls} calls; terminal is foreground only, and a command Hermes would ask approval for, e.g. rm -r, git reset --hard or curl | sh, is denied with status "blocked": the script was the one approval${webNote}). Print the final result. Limits: ${limits.executeCodeDeadlineSeconds} s total including queue wait, ${limits.executeCodeConcurrency} scripts at once, ${limits.executeCodeMaxBytes} bytes of code, ${limits.executeCodeStdoutMaxBytes} characters of stdout kept (head and tail). The script runs with the service user's privileges: this is not a sandbox.`,
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
    holdsLease: true,
    redaction: 'code-file', // stdout and stderr as code, as Hermes' code_execution_tool.py (code_file=True)
    async handler(args, ctx) {
      const code = args.code as string;
      const bytes = Buffer.byteLength(code, 'utf8');
      if (bytes > limits.executeCodeMaxBytes) {
        throw new GatewayError(ErrorCode.CODE_TOO_LARGE, `code is ${bytes} bytes of UTF-8; execute_code accepts at most ${limits.executeCodeMaxBytes}`);
      }
      // A configured resource policy that is broken (RESOURCE_POLICY_INVALID) or that this host
      // cannot enforce (RESOURCE_POLICY_UNENFORCEABLE: no user manager, no delegated cgroup) fails
      // closed, as jobs do: no short worker starts unlimited.
      const refusal = startRefusal(runtime.resources, 'execute_code');
      if (refusal) throw refusal;
      const result = await pool.run(code, ctx, cwdFor(ctx.owner.id));
      return { structured: { ...result } };
    },
  });
}

/**
 * The unit's `done` frame; rejects if the unit ends without one. The init exits right after
 * sending it, and the exit may be noticed before the frame is read: the output pipes closing (or
 * the drain grace) comes after the frame, so only then is a missing frame a crash.
 */
function doneFrame(unit: Unit): Promise<DoneMessage> {
  return new Promise((resolve, reject) => {
    const off = unit.worker.onFrame((message) => {
      if (message.type !== 'done') return;
      off();
      resolve(message);
    });
    void unit.worker.exited.then(async () => {
      await settledWithin(unit.drained, OUTPUT_DRAIN_GRACE_MS);
      await new Promise((r) => setImmediate(r));
      off();
      reject(new Error(`unit exited (${unit.worker.describeExit()}) without reporting its script`));
    });
  });
}

/** Hermes' terminal result for a command its approval guard refused (`status: "blocked"`). */
function blockedCommandResult(verdict: Exclude<CommandVerdict, { verdict: 'allow' }>) {
  if (verdict.verdict === 'deny') {
    // The operator's approvals.deny rules: the same words as the direct tools' COMMAND_DENIED.
    const what = 'problem' in verdict ? `approvals.deny cannot be applied (${verdict.problem})` : `deny rule '${verdict.rule}'`;
    return { output: '', exit_code: -1, error: `Command denied: ${what}. execute_code scripts get no further approvals; ${denyMessage(verdict)}`, status: 'blocked' };
  }
  const why =
    verdict.verdict === 'hardline'
      ? 'it is on the unconditional (hardline) blocklist, so it cannot run through this gateway at all. Do not retry or rephrase it; if it is really needed, the user has to run it outside the agent.'
      : 'the script itself was the one approval. Do not retry or rephrase it inside execute_code; if it is needed, run it with the direct terminal tool, where the user is asked to confirm.';
  return { output: '', exit_code: -1, error: `Command denied: ${verdict.key}. execute_code scripts get no further approvals; ${why}`, status: 'blocked' };
}
