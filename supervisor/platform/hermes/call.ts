import { existsSync } from 'node:fs';
import { descendantsOf } from '../../../shared/proc.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import type { HermesCallModule } from '../../../shared/worker-protocol/hermes-call.js';
import { startRefusal } from '../spawning/resource-policy.js';
import type { WorkerRuntime } from '../spawning/worker-runtime.js';
import { hermesEnvironment, hermesSettings } from './environment.js';
import { describeInstall } from './install-report.js';
import type { HermesInstall } from './locate.js';

// One call of one of Hermes' own functions, where the gateway answers as the Hermes it fronts by
// running that Hermes' code rather than a re-expression of it (document extraction, cron's own
// mutations and refusals): a Hermes call worker (workers/hermes-call/run.py) in the Hermes
// interpreter found at startup, started for the one call under the host's isolation like every
// worker, and killed with everything it started once it has answered, failed or outlived its budget.
// Under an enforced resource policy it is a short worker like an execute_code unit: its own systemd
// scope under hermesshort.slice, or its own cgroup (moved in before Hermes' code runs), with the
// policy's short_workers limits; where the policy cannot be enforced the call is refused before
// anything starts, as execute_code is. It runs in Hermes' checkout (or $HERMES_HOME), with the
// workers' scrubbed environment plus Hermes' own non-secret settings (hermesSettings: its timezone,
// its managed scope): no secret of the gateway's reaches it, and Hermes' lazy installs stay off.

export interface HermesCallOptions {
  /** The whole call's budget, the interpreter's start included. */
  timeoutMs: number;
  /** Cancels the call: the worker is killed and the call rejects with CANCELLED (a mutation: only until it committed). */
  signal?: AbortSignal;
  /**
   * The call may change Hermes' durable state (a cron mutation). Until the worker commits (the
   * 'committing' / 'proceed' handshake of shared/worker-protocol/hermes-call.ts, sent right before
   * Hermes' change begins) nothing has been changed: a cancellation is CANCELLED and a timeout or
   * worker death says nothing was written. Once the gateway has let it proceed, Hermes may have
   * saved at any moment, so `signal` no longer stops it (it runs to its answer or its budget), and
   * a timeout or a worker death after that rejects with `details.outcome: 'unknown'`: whether the
   * change was made is not known.
   */
  mutates?: boolean;
  /**
   * Runs the module in this interpreter instead of Hermes' (only a module that works without Hermes
   * says so: lint's standard-library checks where no Hermes Agent is installed).
   */
  interpreter?: string;
}

export class HermesCaller {
  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly install: HermesInstall,
  ) {}

  /** Whether a Hermes was found to call into (an interpreter that answered without Hermes is none). */
  get available(): boolean {
    return this.install.state !== 'not_installed' && this.install.python !== undefined;
  }

  /**
   * `module`'s `op` with `payload` (workers/hermes-call/<module>.py): its value. Throws a
   * GatewayError: HERMES_AGENT_NOT_INSTALLED without a Hermes, RESOURCE_POLICY_INVALID or
   * RESOURCE_POLICY_UNENFORCEABLE when the host's resource policy lets no short worker start,
   * HERMES_CALL_UNSUPPORTED when this Hermes lacks what the operation needs, HERMES_CALL_FAILED when
   * Hermes' function raised or the worker died, HERMES_CALL_TIMEOUT past the budget, CANCELLED when
   * `signal` aborts (see HermesCallOptions.mutates for a mutation's).
   */
  async call(module: HermesCallModule, op: string, payload: unknown, options: HermesCallOptions): Promise<unknown> {
    const what = `Hermes' ${module} ${op}`;
    const { worker, cgroup } = this.startWorker(module, what, options);
    /** Whether the call frame has been sent. */
    let handed = false;
    /**
     * Whether the worker was let past its point of no return ('proceed' answered its 'committing'):
     * from then on Hermes' code may have changed something. Decided in one frame handler, so an
     * abort or the budget's end and the 'committing' frame are ordered by the event loop alone.
     */
    let committed = false;
    let expired = false;
    const unknown = (code: ErrorCode, why: string) =>
      new GatewayError(code, `${what} ${why} after it had begun the change, so the change may or may not have been made; look before retrying`, { outcome: 'unknown' });
    /** Before the worker committed, a mutation has written nothing: its messages say so. */
    const untouched = options.mutates ? ' before it began the change: nothing was written' : '';
    const offCommit = worker.onFrame((message) => {
      if (message.type !== 'committing' || !handed || committed) return;
      // Stopped already (cancelled, or past the budget): no 'proceed'. The worker is being killed
      // and, still waiting for the answer, ends before it touches anything.
      if (options.signal?.aborted || expired) return;
      committed = true;
      worker.send({ type: 'proceed', id: message.id });
    });
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        if (options.mutates && committed) reject(unknown(ErrorCode.HERMES_CALL_TIMEOUT, `did not answer within ${options.timeoutMs / 1000} s and was stopped`));
        else reject(new GatewayError(ErrorCode.HERMES_CALL_TIMEOUT, `${what} did not answer within ${options.timeoutMs / 1000} s; it was stopped${untouched}`));
      }, options.timeoutMs);
      onAbort = () => {
        // A mutation past its commit runs to its answer (or its budget): stopping it midway could
        // leave a change made and reported as not made.
        if (options.mutates && committed) return;
        reject(new GatewayError(ErrorCode.CANCELLED, `${what} was cancelled${untouched}`));
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const answer = async () => {
        await worker.waitFor((m) => m.type === 'ready');
        // Nothing of Hermes has run yet: moved in now, everything Hermes' code starts is born inside.
        if (cgroup && worker.pid) for (const pid of [worker.pid, ...descendantsOf(worker.pid)]) cgroup.adopt(pid);
        handed = true;
        return worker.request({ type: 'call', module, op, payload });
      };
      let reply;
      try {
        reply = await Promise.race([answer(), stopped]);
      } catch (e) {
        if (e instanceof GatewayError) throw e;
        if (options.mutates && committed) throw unknown(ErrorCode.HERMES_CALL_FAILED, `ended without an answer (${(e as Error).message})`);
        throw new GatewayError(ErrorCode.HERMES_CALL_FAILED, `${what} ended without an answer (${(e as Error).message})${untouched}`);
      }
      if (reply.failure) {
        const code = reply.failure.kind === 'unsupported' ? ErrorCode.HERMES_CALL_UNSUPPORTED : ErrorCode.HERMES_CALL_FAILED;
        throw new GatewayError(code, `${what}: ${reply.failure.message}`, { kind: reply.failure.kind });
      }
      return reply.value;
    } finally {
      clearTimeout(timer);
      offCommit();
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      await worker.kill();
      cgroup?.remove();
    }
  }

  /**
   * The worker of one call, in the interpreter the call runs on (Hermes', or `options.interpreter`)
   * and, under an enforced resource policy, its own short-worker cgroup; the refusals that stop a
   * call before anything starts are thrown here.
   */
  private startWorker(module: HermesCallModule, what: string, options: HermesCallOptions) {
    const python = options.interpreter ?? this.install.python;
    if (!python || (options.interpreter === undefined && !this.available)) throw new GatewayError(ErrorCode.HERMES_AGENT_NOT_INSTALLED, `this needs Hermes Agent's own ${module} code, and no Hermes Agent was found (${describeInstall(this.install)})`);
    options.signal?.throwIfAborted();
    const refusal = startRefusal(this.runtime.resources, what);
    if (refusal) throw refusal;
    const { config } = this.runtime;
    const cgroup = this.runtime.shortWorkerCgroup('hermes-call');
    try {
      const worker = this.runtime.spawnWorker('hermes-call', {
        interpreter: python,
        cwd: existsSync(config.hermesToolsCwd) ? config.hermesToolsCwd : '/',
        env: { ...hermesEnvironment({ ...this.runtime.childEnv, ...hermesSettings(config) }, config.hermesHome), PYTHONDONTWRITEBYTECODE: '1' },
      });
      return { worker, cgroup };
    } catch (e) {
      cgroup?.remove();
      throw e;
    }
  }
}
