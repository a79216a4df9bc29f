import { PassThrough, type Writable } from 'node:stream';
import type { Socket } from 'node:net';
import { signalName } from '../../../../shared/proc.js';
import { encodeFrame, type Frame } from '../../../../shared/worker-protocol/frame.js';
import { executeUnitProtocol, type ExecuteUnitProtocol } from '../../../../shared/worker-protocol/execute.js';
import { messageDecoder, PendingRequests, type ReplyTo, type RequestBody, type RequestType } from '../../../../shared/worker-protocol/protocol.js';
import type { UnitHelloMessage } from '../../../../shared/worker-protocol/zygote.js';
import type { ExecuteUnit } from './unit.js';
import type { UnitConnectionKind } from './unit-connections.js';
import { firstMessage, type WorkerExit } from '../../../platform/spawning/worker-process.js';

// One execute_code unit forked by the unit zygote (workers/execute/zygote.py), seen through the
// same surface a spawned unit's WorkerProcess offers the pool (pool.ts): frames, the script's stdio,
// exit, kill. The unit reaches the gateway over three connections it makes itself
// (unit-connections.ts); until they arrive, the script's stdio are buffered in pass-through streams,
// so the caller can use them at once, as it would a spawned process's pipes.
//
// kill() SIGKILLs the unit's init (PID 1 of its namespace, pid as the gateway sees it, from the
// unit's first frame): the kernel then kills everything in the namespace, the holder reaps the init
// and exits, and the zygote reaps the holder and reports it. Before that pid is known, the zygote
// kills the holder instead (the init follows by its parent-death signal). The exit only counts once
// the frame channel has closed as well, so every frame the unit sent is delivered before `exited`.

/** What a zygote unit needs from its zygote. */
interface UnitHost {
  /** Stop accepting connections for this unit (its token is spent, or it has ended). */
  forget(id: string): void;
  /** SIGKILL the unit's holder (the zygote's child, so never a reused pid). */
  killHolder(id: string): void;
  /** The unit did not end in time after a kill: end the zygote and every unit it holds. */
  unresponsive(): void;
}

type UnitMessage = ExecuteUnitProtocol['fromWorker'];

interface ForkedUnitOptions {
  id: string;
  token: string;
  maxFrameBytes: number;
  /** How long kill() waits for the unit to end before giving up on its zygote. */
  reapGraceMs: number;
  /** A protocol violation or a crash (the unit is already dead). */
  onFailure?: (reason: string) => void;
}

export class ForkedUnit implements ExecuteUnit {
  readonly exited: Promise<WorkerExit>;
  private resolveExit!: (exit: WorkerExit) => void;
  private readonly io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
  private readonly sockets = new Map<UnitConnectionKind, Socket>();
  private readonly handlers = new Set<(message: UnitMessage) => void>();
  private readonly requests = new PendingRequests<ExecuteUnitProtocol>(executeUnitProtocol);
  private readonly unsent: Buffer[] = [];
  private framesClosed?: Promise<void>;
  /** The frame channel has closed: the init is dead (only it holds that socket), its pid maybe reused. */
  private initGone = false;
  private initPid?: number;
  private exitReported = false;
  private exitInfo?: WorkerExit;
  private note = '';
  private killed = false;

  constructor(
    private readonly host: UnitHost,
    private readonly options: ForkedUnitOptions,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
  }

  get id(): string {
    return this.options.id;
  }

  /** The one-time secret its connections open with. */
  get token(): string {
    return this.options.token;
  }

  /** The unit's init, as the gateway sees it (known once the unit has connected). */
  get pid(): number | undefined {
    return this.initPid;
  }

  /** False from the moment its end is known (its zygote reaped it or died), before `exited` settles. */
  get alive(): boolean {
    return !this.exitReported;
  }

  get scriptIo(): { stdin: Writable; stdout: PassThrough; stderr: PassThrough } {
    return this.io;
  }

  describeExit(): string {
    const e = this.exitInfo;
    const how = e ? (e.signal ? `signal ${e.signal}` : `code ${e.code}`) : 'running';
    return this.note ? `${how}; ${this.note}` : how;
  }

  /** An authenticated connection of this unit (see unit-connections.ts); false refuses it. */
  attach(kind: UnitConnectionKind, socket: Socket, rest: Buffer): boolean {
    if (this.exitReported || this.sockets.has(kind)) return false;
    this.sockets.set(kind, socket);
    if (this.sockets.size === 3) this.host.forget(this.id);
    if (kind === 'f') {
      this.attachFrames(socket, rest);
      return true;
    }
    const out = kind === 'o' ? this.io.stdout : this.io.stderr;
    if (rest.length > 0) out.write(rest);
    socket.pipe(out);
    // An end by error (not 'end') does not end the pipe's destination: the output is complete anyway.
    socket.once('close', () => {
      if (!out.writableEnded) out.end();
    });
    if (kind === 'o') this.io.stdin.pipe(socket); // the code, then a half-close: the script's EOF
    return true;
  }

  private attachFrames(socket: Socket, rest: Buffer): void {
    this.framesClosed = new Promise((resolve) =>
      socket.once('close', () => {
        this.initGone = true;
        resolve();
      }),
    );
    // The unit's protocol, plus the one `hello` (its init's pid) that comes first; any other
    // type is a protocol violation, as on a spawned unit's pipe.
    const decoder = messageDecoder(
      (frame): frame is UnitMessage | UnitHelloMessage => frame.type === 'hello' || executeUnitProtocol.isFromWorker(frame),
      (message) => {
        if (message.type === 'hello') {
          if (this.initPid === undefined && typeof message.pid === 'number') this.initPid = message.pid;
          return;
        }
        this.requests.settle(message);
        for (const h of this.handlers) h(message);
      },
      (error) => this.fail(`protocol violation: ${error.message}`),
      this.options.maxFrameBytes,
    );
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
    socket.resume(); // paused while its preamble was checked
    if (rest.length > 0) decoder.push(rest);
    for (const frame of this.unsent.splice(0)) socket.write(frame);
  }

  /** The zygote reaped this unit's holder (or is gone itself): the unit has ended. */
  reportExit(code: number | null, signal: number | null, note = ''): void {
    if (this.exitReported) return;
    this.exitReported = true;
    this.note = note;
    this.host.forget(this.id);
    const exit: WorkerExit = { code, signal: signal === null ? null : (signalName(signal) ?? 'SIGKILL') };
    let timer: NodeJS.Timeout | undefined;
    const framesDone = this.framesClosed ?? Promise.resolve();
    void Promise.race([framesDone, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.reapGraceMs)))]).then(() => {
      clearTimeout(timer);
      // Output channels that never connected have nothing more to say.
      for (const [kind, out] of [['o', this.io.stdout], ['e', this.io.stderr]] as const) {
        if (!this.sockets.has(kind) && !out.writableEnded) out.end();
      }
      this.exitInfo = exit;
      this.requests.close(() => new Error(`worker exited (${this.describeExit()})`));
      this.resolveExit(exit);
      if (!this.killed && exit.code !== 0) this.options.onFailure?.(`worker exited unexpectedly (${this.describeExit()})`);
    });
  }

  onFrame(handler: (message: UnitMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  request<K extends RequestType<ExecuteUnitProtocol>>(body: RequestBody<ExecuteUnitProtocol, K>): Promise<ReplyTo<ExecuteUnitProtocol, K>> {
    return this.requests.request(body, (message) => this.send(message));
  }

  private send(frame: Frame): void {
    if (!this.alive) return;
    const bytes = encodeFrame(frame, this.options.maxFrameBytes);
    const channel = this.sockets.get('f');
    if (!channel) this.unsent.push(bytes);
    else if (!channel.destroyed) channel.write(bytes);
  }

  /** Resolves with the first message `match` accepts; rejects if the unit exits first. */
  waitFor<M extends UnitMessage>(match: (message: UnitMessage) => message is M): Promise<M> {
    return firstMessage(this, match, () => new Error(`worker exited (${this.describeExit()})`));
  }

  private fail(reason: string): void {
    if (this.killed) return;
    void this.kill().then(() => this.options.onFailure?.(reason));
  }

  /** Whole-namespace teardown; resolves once the unit has ended and its connections are closed. */
  async kill(): Promise<void> {
    this.killed = true;
    if (!this.exitReported) {
      if (this.initGone) {
        // Already ending: its exit is on the way.
      } else if (this.initPid !== undefined) {
        try {
          process.kill(this.initPid, 'SIGKILL');
        } catch {
          // already gone: its exit is on the way
        }
      } else {
        this.host.killHolder(this.id);
      }
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.options.reapGraceMs))),
      ]);
      clearTimeout(timer);
      if (!ended) this.host.unresponsive();
    }
    await this.exited;
    // Nothing inside can hold them any more; something outside the namespace might (a descriptor
    // passed on), and the gateway does not wait for that.
    for (const socket of this.sockets.values()) socket.destroy();
  }
}
