import { settledWithin } from '../../../shared/settle.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { capHeadTail, stripAnsi } from '../../../shared/output-cap.js';
import { signalName } from '../../../shared/proc.js';
import type { DoneMessage } from '../../../shared/worker-protocol/execute.js';
import type { CallContext } from '../../core/tool-types.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import { startRefusal } from '../../platform/spawning/resource-policy.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { approvalPolicy } from '../command-guards/index.js';
import { createCallUnit, destroyCallUnit, doneFrame, OUTPUT_DRAIN_GRACE_MS, type CallUnit } from './call-unit.js';
import type { RpcDispatch } from './rpc/index.js';
import { scriptTerminal } from './script-terminal.js';
import { ExecuteUnitSource, stubSignatures } from './units/index.js';
import { monotonicMs } from '../../../shared/clock.js';

// execute_code: one fresh unit (own PID namespace) per call, never reused, with a 30-second
// deadline that includes queue wait, at most two running at once and a bounded queue (an explicit
// BUSY, never an unbounded wait). A unit is the small Python init of workers/execute/unit.py with
// the script's interpreter already forked and blocked on stdin, plus its own RPC socket and token;
// it is forked by the warm unit zygote where that gives the same guarantees, else spawned
// (units/).
// As many units as may run at once (executeCodeConcurrency) are kept prepared, and a replacement
// is started the moment a call takes one, not after the call: calls that follow each other closely
// then find a unit ready instead of paying for its start-up. Each still runs exactly one script.

/** A prepared (or still preparing) unit nobody has taken yet. */
interface Pooled {
  cwd: string;
  unit: Promise<CallUnit>;
}

interface ExecuteResult {
  status: 'success' | 'error' | 'timeout' | 'interrupted';
  output: string;
  tool_calls_made: number;
  duration_seconds: number;
  error?: string;
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

  private createUnit(cwd: string): Promise<CallUnit> {
    return createCallUnit(this.runtime, this.units, cwd, (unit, tool, args) => {
      if (tool !== 'terminal') return this.dispatch(tool, args, unit.call!.ctx);
      return scriptTerminal(unit, args, this.runtime, this.release);
    });
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
          void entry.unit.then((u) => destroyCallUnit(u), () => {});
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
  private async take(cwd: string): Promise<CallUnit> {
    for (let i = this.pooled.findIndex((p) => p.cwd === cwd); i >= 0; i = this.pooled.findIndex((p) => p.cwd === cwd)) {
      const unit = await this.pooled.splice(i, 1)[0]!.unit.catch(() => undefined);
      if (unit?.worker.alive) return unit;
      if (unit) void destroyCallUnit(unit);
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
      const timer = setTimeout(() => giveUp('timeout'), Math.max(0, deadline - monotonicMs()));
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
    const started = monotonicMs();
    const deadlineSeconds = this.runtime.config.limits.executeCodeDeadlineSeconds;
    const deadline = started + deadlineSeconds * 1000;
    const elapsed = () => Math.round((monotonicMs() - started) / 10) / 100;
    let slot = await this.acquireSlot(deadline, ctx.signal);
    // A slot freed in the same instant the deadline passed is no use: never start a script late.
    if (slot === 'ok' && monotonicMs() >= deadline) {
      this.releaseSlot();
      slot = 'timeout';
    }
    if (slot !== 'ok') {
      return slot === 'timeout'
        ? { status: 'timeout', output: `⏰ Script timed out after ${deadlineSeconds}s waiting for a free worker and never ran.`, tool_calls_made: 0, duration_seconds: elapsed() }
        : { status: 'interrupted', output: '', tool_calls_made: 0, duration_seconds: elapsed() };
    }
    let unit: CallUnit | undefined;
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
        const timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.max(0, deadline - monotonicMs()));
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
      if (u) void destroyCallUnit(u).finally(() => this.releaseSlot());
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
    await Promise.all(pooled.map((p) => p.unit.then((u) => destroyCallUnit(u), () => {})));
    await this.units.close();
  }
}
