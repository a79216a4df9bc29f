import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { defaultLimits } from '../../../shared/limits.js';
import { descendantsOf, processesTagged, WORKER_TAG_VAR } from '../../../shared/proc.js';
import { subreaperAddon } from '../../../shared/subreaper.js';
import { defaultMaxFrameBytes, FRAME_CAP_VAR } from '../../../shared/worker-protocol/caps.js';
import { encodeFrame, type Frame } from '../../../shared/worker-protocol/frame.js';
import { messageDecoder, PendingRequests, type ProtocolMessages, type ReplyTo, type RequestBody, type RequestType, type WorkerProtocol } from '../../../shared/worker-protocol/protocol.js';
import type { IsolationReport } from './isolation.js';

// Supervisor side of one worker process: spawned under the host's isolation prefix (and, when the
// resource policy is enforced, a systemd scope), spoken to with length-prefixed frames on fd 3 in
// its kind's protocol (shared/worker-protocol/): send() and onFrame() take and give only that
// kind's messages, request() pairs a request with its response by id, and a frame of a type the
// kind does not speak is a protocol violation like a malformed one.
// kill() is the whole-tree teardown: in pid-namespace mode SIGKILL of the `unshare` process makes
// the kernel kill the namespace (its init is the worker, every escapee is inside); in the fallback
// modes the process group is killed and the host is swept for processes carrying this worker's tag.

interface WorkerSpawnOptions<P extends ProtocolMessages> {
  /** The protocol the worker speaks (its kind). */
  protocol: WorkerProtocol<P>;
  /** Absolute path of the worker's compiled entry point (workers/*.js), or of its script. */
  entry: string;
  /** What runs `entry`: this Node by default (an execute_code unit is a Python script). */
  interpreter?: string;
  /**
   * stdin, stdout and stderr are pipes the caller uses (an execute_code unit: the code goes in,
   * the script's output comes out); by default only stderr is piped, kept as a diagnostic tail.
   */
  scriptIo?: boolean;
  isolation: IsolationReport;
  /** The complete environment of the worker and everything it starts (already scrubbed). */
  env: Record<string, string>;
  cwd: string;
  /** `systemd-run --scope ...` argv prefix when the resource policy is enforced. */
  scope?: readonly string[];
  /** The frame cap of both ends (default: the one derived from the default limits); handed to the worker in its environment. */
  maxFrameBytes?: number;
  /** The worker does one job and exits 0 by itself when done (not a failure). */
  oneShot?: boolean;
  /** A protocol violation (bad frame) or a crash: the worker has already been killed. */
  onFailure?: (reason: string) => void;
  /** How long kill() lets the launcher (`unshare`) reap the killed worker before killing it too (default: the workerReapGraceSeconds limit). */
  reapGraceMs?: number;
}

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDERR_KEEP = 8192;

export class WorkerProcess<P extends ProtocolMessages> {
  readonly tag = randomBytes(12).toString('hex');
  readonly exited: Promise<WorkerExit>;
  private readonly child: ChildProcess;
  private readonly channel: Writable & Readable;
  private readonly handlers = new Set<(message: P['fromWorker']) => void>();
  private readonly requests: PendingRequests<P>;
  private readonly maxFrameBytes: number;
  private stderrTail = '';
  private killed = false;
  private exitInfo?: WorkerExit;

  constructor(private readonly options: WorkerSpawnOptions<P>) {
    this.requests = new PendingRequests(options.protocol);
    this.maxFrameBytes = options.maxFrameBytes ?? defaultMaxFrameBytes();
    const argv = [...(options.scope ?? []), ...options.isolation.prefix, options.interpreter ?? process.execPath, options.entry];
    this.child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: { ...options.env, [WORKER_TAG_VAR]: this.tag, [FRAME_CAP_VAR]: String(this.maxFrameBytes) },
      stdio: options.scriptIo ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['ignore', 'ignore', 'pipe', 'pipe'],
      // Own process group: the fallback teardown kills the whole group at once.
      detached: true,
    });
    this.channel = this.child.stdio[3] as Writable & Readable;
    const decoder = messageDecoder(
      options.protocol.isFromWorker,
      (message) => {
        this.requests.settle(message);
        for (const h of this.handlers) h(message);
      },
      (error) => this.fail(`protocol violation: ${error.message}`),
      this.maxFrameBytes,
    );
    this.channel.on('data', (chunk: Buffer) => decoder.push(chunk));
    this.channel.on('error', () => {});
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      this.child.once('error', (error) => {
        this.stderrTail += `\nspawn failed: ${error.message}`;
        this.exitInfo = { code: null, signal: null };
        resolve(this.exitInfo);
      });
    });
    void this.exited.then(() => {
      this.requests.close(() => this.exitError());
      // Whatever ended the worker, nothing it started may outlive it.
      this.sweepFallback();
      // A one-shot worker (execute, process) exiting cleanly has finished its job; any other exit
      // we did not ask for is a crash.
      const finished = this.options.oneShot === true && this.exitInfo?.code === 0;
      if (!this.killed && !finished) this.options.onFailure?.(`worker exited unexpectedly (${this.describeExit()})`);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** The script's stdio (`scriptIo` workers only). */
  get scriptIo(): { stdin: Writable; stdout: Readable; stderr: Readable } {
    if (!this.options.scriptIo) throw new Error('this worker was not spawned with scriptIo');
    return { stdin: this.child.stdin!, stdout: this.child.stdout!, stderr: this.child.stderr! };
  }

  describeExit(): string {
    const e = this.exitInfo;
    return e ? (e.signal ? `signal ${e.signal}` : `code ${e.code}`) : 'running';
  }

  /** Every message the worker sends, in order (responses to request() included). */
  onFrame(handler: (message: P['fromWorker']) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** A message that expects no response; a no-op once the worker is gone. */
  send(message: P['toWorker']): void {
    this.write(message);
  }

  /**
   * Sends a request (the id is assigned here) and resolves with the worker's response to it,
   * whatever else arrives in between; rejects if the worker exits (or is killed) first.
   */
  request<K extends RequestType<P>>(body: RequestBody<P, K>): Promise<ReplyTo<P, K>> {
    return this.requests.request(body, (message) => this.write(message));
  }

  /** Resolves with the first message `match` accepts; rejects if the worker exits first. */
  waitFor<M extends P['fromWorker']>(match: (message: P['fromWorker']) => message is M): Promise<M>;
  waitFor(match: (message: P['fromWorker']) => boolean): Promise<P['fromWorker']>;
  waitFor(match: (message: P['fromWorker']) => boolean): Promise<P['fromWorker']> {
    return firstMessage(this, match, () => this.exitError());
  }

  private write(message: Frame): void {
    if (!this.alive || this.channel.destroyed) return;
    this.channel.write(encodeFrame(message, this.maxFrameBytes));
  }

  private exitError(): Error {
    return new Error(`worker exited (${this.describeExit()}) ${this.stderrTail.trim().slice(-500)}`.trim());
  }

  private fail(reason: string): void {
    if (this.killed) return;
    void this.kill().then(() => this.options.onFailure?.(reason));
  }

  /**
   * Whole-tree teardown; resolves once the worker has exited and the sweep is done. SIGKILL, not
   * SIGTERM: the worker is PID 1 of its namespace and `unshare` blocks TERM (measured), and the
   * point here is that nothing survives, not a graceful stop (workers get a 'shutdown' frame for that).
   */
  async kill(): Promise<void> {
    this.killed = true;
    if (this.alive && this.child.pid) {
      // Kill the whole visible tree at once (in a PID namespace every escapee is a descendant of
      // the worker, re-parented to it as the namespace init) rather than waiting for the kernel to
      // tear the namespace down after the worker's own, much larger, exit.
      const tree = descendantsOf(this.child.pid);
      for (const pid of tree) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      // Under an isolation prefix the spawned process is the launcher (`unshare --fork`) and the
      // worker is its child. Killed in the same instant, the launcher dies before waiting for the
      // worker, which is then re-parented to this process (a child subreaper) and, since libuv
      // never waits for a child it did not spawn, stays a zombie for good. So the launcher gets to
      // reap its worker and exit by itself first; only one that does not is killed.
      if (tree.length > 0 && this.options.isolation.prefix.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.reapGraceMs ?? defaultLimits().workerReapGraceSeconds * 1000)))]);
        clearTimeout(timer);
      }
    }
    if (this.alive && this.child.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        try {
          this.child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await this.exited;
    this.sweepFallback();
  }

  /**
   * Outside a PID namespace, processes that left the worker's process group (setsid) survive the
   * group kill: find them by this worker's environment tag, kill them, and reap the ones the
   * supervisor adopted as a subreaper.
   */
  private sweepFallback(): void {
    if (this.options.isolation.mode === 'pid-namespace') return;
    const addon = subreaperAddon();
    for (let round = 0; round < 5; round++) {
      const victims = processesTagged(this.tag);
      if (victims.length === 0) return;
      for (const pid of victims) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      if (addon) for (const pid of victims) addon.reap(pid);
    }
  }
}

/**
 * The first message from `source` that `match` accepts; rejects with `exitError()` if the source
 * exits first. Shared by every kind of worker handle (spawned workers, zygote-forked units).
 */
type MessageSource<M> = { onFrame(handler: (message: M) => void): () => void; readonly exited: Promise<unknown> };
export function firstMessage<M, A extends M>(source: MessageSource<M>, match: (message: M) => message is A, exitError: () => Error): Promise<A>;
export function firstMessage<M>(source: MessageSource<M>, match: (message: M) => boolean, exitError: () => Error): Promise<M>;
export function firstMessage<M>(source: MessageSource<M>, match: (message: M) => boolean, exitError: () => Error): Promise<M> {
  return new Promise((resolve, reject) => {
    const off = source.onFrame((message) => {
      if (match(message)) {
        off();
        resolve(message);
      }
    });
    void source.exited.then(() => {
      off();
      reject(exitError());
    });
  });
}
