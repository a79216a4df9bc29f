import { randomBytes } from 'node:crypto';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ProcessProtocol, TerminalSize } from '../../../../shared/worker-protocol/process.js';
import { settledWithin } from '../../../../shared/settle.js';
import { HermesRelease } from '../../../platform/hermes/release.js';
import type { WorkerProcess } from '../../../platform/spawning/worker-process.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';

// The owner-scoped process registry behind process_manage (Hermes' `process` tool; the tool is in
// index.ts, its input actions in pty-input.ts). Direct terminal never backgrounds
// anything, so processes enter here only through the jobs adapter; each runs in a worker of its own
// (own PID namespace). Jobs start with persistOnRelease (Hermes' persist_on_release=true): their
// session ending does not stop them. An owner sees and acts on its own processes only: another
// owner's id answers exactly like an id that does not exist. Following Hermes 0.22.2, a process is
// also found by a unique prefix of its id, among its owner's processes only.

const OUTPUT_KEEP_CHARS = 200_000; // Hermes' rolling buffer
const FINISHED_KEEP_MS = 30 * 60_000; // finished processes stay visible for 30 minutes
const MAX_FINISHED_KEPT = 256;
/** Running background processes at once (finished ones stay listed but do not count). */
const MAX_TRACKED = 64;
/** The shortest id prefix that finds a process (Hermes' _MIN_PREFIX_CHARS, after `proc_`). */
const MIN_PREFIX_CHARS = 4;

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export interface TrackedProcess {
  id: string;
  ownerId: string;
  command: string;
  cwd: string;
  pid?: number;
  startedAt: number;
  output: string;
  exited: boolean;
  exitCode?: number | null;
  completionReason?: 'exited' | 'killed' | 'lost';
  /** Who ended it, when something did (Hermes' termination_source, e.g. `process.kill`). */
  terminationSource?: string;
  finishedAt?: number;
  worker: WorkerProcess<ProcessProtocol>;
  waiters: Array<() => void>;
  /** Hermes' persist_on_release: the owner ending does not kill it (jobs). */
  persistOnRelease: boolean;
  exitSignal?: string | null;
  /** A PTY process: its current window size (absent: plain pipes). */
  terminal?: TerminalSize;
  /** A PTY process's rendered lines still on the screen (see pty-input.ts); '' otherwise. */
  screen: string;
  /** The job this process runs, when a job started it. */
  jobId?: string;
  /** Told each new window size (a job records it for job_status). */
  onResize?: (size: TerminalSize) => void;
}

/** How the jobs adapter starts its work (Hermes' terminal background=true, persist_on_release=true). */
interface StartOptions {
  persistOnRelease?: boolean;
  /** A `systemd-run --scope` prefix for the worker (the job's slice and limits). */
  scope?: readonly string[];
  /** Runs after the worker is up and before the command starts (e.g. moving it into a cgroup). */
  beforeStart?: (worker: WorkerProcess<ProcessProtocol>) => void;
  /** The worker writes the command's outcome here before reporting it. */
  exitFile?: string;
  onOutput?: (data: string) => void;
  /** Run the command on a pseudo-terminal of this size. */
  pty?: TerminalSize;
  /** PTY only: the rendered lines still on the screen, each call replacing the last. */
  onScreen?: (screen: string) => void;
  jobId?: string;
  onResize?: (size: TerminalSize) => void;
  onExit?: (proc: TrackedProcess) => void;
}

export class ProcessRegistry {
  private readonly processes = new Map<string, TrackedProcess>();

  constructor(
    private readonly runtime: WorkerRuntime,
    /** The Hermes followed (whether ids may be given by a prefix). */
    private readonly hermes: HermesRelease = new HermesRelease(undefined),
  ) {}

  /** How long a process worker may take to come up and to start its command (workerStartTimeoutSeconds). */
  private get startTimeoutMs(): number {
    return this.runtime.config.limits.workerStartTimeoutSeconds * 1000;
  }

  /** Starts `command` for `ownerId` in a fresh isolated worker (the jobs adapter's entry point). */
  async start(ownerId: string, command: string, cwd: string, options: StartOptions = {}): Promise<TrackedProcess> {
    this.prune();
    if (!this.hasCapacity) {
      throw new GatewayError(ErrorCode.BUSY, `at most ${MAX_TRACKED} background processes run at once; kill or wait for some first`);
    }
    const worker = this.runtime.spawnWorker('process-worker', options.scope ? { scope: options.scope } : {});
    const proc: TrackedProcess = {
      id: `proc_${randomBytes(6).toString('hex')}`,
      ownerId,
      command,
      cwd,
      startedAt: Date.now(),
      output: '',
      exited: false,
      worker,
      waiters: [],
      persistOnRelease: options.persistOnRelease === true,
      screen: '',
      ...(options.pty ? { terminal: options.pty } : {}),
      ...(options.jobId ? { jobId: options.jobId } : {}),
      ...(options.onResize ? { onResize: options.onResize } : {}),
    };
    this.processes.set(proc.id, proc);
    worker.onFrame((message) => {
      if (message.type === 'output') {
        proc.output = (proc.output + message.data).slice(-OUTPUT_KEEP_CHARS);
        options.onOutput?.(message.data);
      } else if (message.type === 'screen') {
        proc.screen = message.data.slice(-OUTPUT_KEEP_CHARS);
        options.onScreen?.(proc.screen);
      } else if (message.type === 'started') {
        proc.pid = message.pid;
      } else if (message.type === 'exit') {
        proc.exitSignal = message.signal ?? null;
        this.markExited(proc, message.killed ? 'killed' : 'exited', message.exitCode ?? (message.killed ? -15 : null));
      }
    });
    const exitHook = () => options.onExit?.(proc);
    proc.waiters.push(exitHook);
    void worker.exited.then(() => this.markExited(proc, 'lost', null));
    // A worker that never comes up (a hung scope wrapper, a stuck exec) must not hold its caller
    // forever: bounded waits, and on failure the worker and everything it started are killed.
    try {
      await withDeadline(worker.waitFor((f) => f.type === 'ready'), this.startTimeoutMs, 'the worker did not come up');
      options.beforeStart?.(worker);
    } catch (e) {
      // Nothing was started: the caller records its own failure, not an exit of the command.
      proc.waiters = proc.waiters.filter((w) => w !== exitHook);
      await worker.kill();
      this.processes.delete(proc.id);
      throw new GatewayError(ErrorCode.WORKER_FAILED, `could not start the background process: ${(e as Error).message}`);
    }
    const started = worker.waitFor((f) => f.type === 'started' || f.type === 'exit');
    worker.send({ type: 'start', command, cwd, ...(options.exitFile ? { exitFile: options.exitFile } : {}), ...(options.pty ? { pty: options.pty } : {}) });
    try {
      await withDeadline(started, this.startTimeoutMs, 'the command did not start');
    } catch (e) {
      // The command may have begun: kill it; its exit is reported through onExit as usual.
      await worker.kill();
      throw new GatewayError(ErrorCode.WORKER_FAILED, `could not start the background process: ${(e as Error).message}`);
    }
    return proc;
  }

  /** Whether another process may start (finished ones do not count). */
  get hasCapacity(): boolean {
    return this.running < MAX_TRACKED;
  }

  private markExited(proc: TrackedProcess, reason: 'exited' | 'killed' | 'lost', code: number | null): void {
    if (proc.exited) return;
    proc.exited = true;
    proc.exitCode = code;
    proc.completionReason = reason;
    proc.finishedAt = Date.now();
    for (const wake of proc.waiters.splice(0)) wake();
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, p] of this.processes) if (p.exited && now - (p.finishedAt ?? now) > FINISHED_KEEP_MS) this.processes.delete(id);
    // Finished processes are kept for their owners to read, but not without bound.
    const finished = [...this.processes.values()].filter((p) => p.exited);
    for (const p of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_KEPT))) this.processes.delete(p.id);
  }

  /** The owner's process, or the same not-found for a missing id and for someone else's. */
  get(ownerId: string, id: string): TrackedProcess {
    const exact = this.processes.get(id);
    const p = exact ?? (this.hermes.has('process-id-prefix') ? this.byPrefix(ownerId, id) : undefined);
    if (!p || p.ownerId !== ownerId) throw new GatewayError(ErrorCode.PROCESS_NOT_FOUND, `No process with ID ${id}`, { status: 'not_found' });
    return p;
  }

  /**
   * The owner's one process whose id starts with `id` (`proc_4dae` or bare `4dae`, at least 4
   * characters after `proc_`), as Hermes' ProcessRegistry._resolve_prefix; an ambiguous or too
   * short prefix finds nothing. Hermes looks among every owner's processes; here only among the
   * caller's, so another owner's ids stay invisible.
   */
  private byPrefix(ownerId: string, id: string): TrackedProcess | undefined {
    const trimmed = id.trim();
    if (trimmed === '') return undefined;
    const query = trimmed.startsWith('proc_') ? trimmed : `proc_${trimmed}`;
    if (query.length - 'proc_'.length < MIN_PREFIX_CHARS) return undefined;
    const matches = [...this.processes.values()].filter((p) => p.ownerId === ownerId && p.id.startsWith(query));
    return matches.length === 1 ? matches[0] : undefined;
  }

  list(ownerId: string): TrackedProcess[] {
    this.prune();
    return [...this.processes.values()].filter((p) => p.ownerId === ownerId);
  }

  async kill(p: TrackedProcess): Promise<void> {
    if (p.exited) return;
    p.worker.send({ type: 'kill' });
    const gone = new Promise<void>((resolve) => p.waiters.push(resolve));
    await settledWithin(gone, 2000);
    if (!p.exited) {
      await p.worker.kill();
      this.markExited(p, 'killed', -15);
    }
  }

  /** Waits for exit up to `ms`; true when the process has exited. */
  async wait(p: TrackedProcess, ms: number, signal: AbortSignal): Promise<boolean> {
    if (p.exited) return true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
      p.waiters.push(done);
    });
    return p.exited;
  }

  /** Release hook: the owner ended; its processes die with it, except those persisting on release (jobs). */
  async release(ownerId: string): Promise<void> {
    const ending = this.list(ownerId).filter((p) => !p.persistOnRelease);
    await Promise.all(ending.map((p) => this.kill(p)));
    for (const p of ending) this.processes.delete(p.id);
  }

  /** The polite first step of stopping: SIGTERM to everything the process started. */
  terminate(p: TrackedProcess): void {
    if (!p.exited) p.worker.send({ type: 'terminate' });
  }

  /** Gateway shutdown. Jobs (persistOnRelease) are left to the jobs adapter, which stops them politely and records how they ended. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.processes.values()].filter((p) => !p.persistOnRelease).map((p) => this.kill(p)));
  }

  get running(): number {
    return [...this.processes.values()].filter((p) => !p.exited).length;
  }
}
