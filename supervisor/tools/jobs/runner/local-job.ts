import type { TrackedProcess } from '../../processes/process-manage/index.js';
import type { CgroupLimit } from '../../../platform/spawning/cgroup-limits.js';
import { stripAnsi } from '../../../../shared/output-cap.js';
import { storedCommandOutput, type CommandPlace } from '../../../core/result.js';
import { styledTwin } from '../../../core/styled.js';
import { completionFromRecord, readExitRecord } from './exit-record.js';
import type { Completion, ReceiptOutput } from '../store/index.js';

// A job this gateway process runs (runner.ts and launch.ts start and stop it): its process, the output it
// has produced so far, how it is being stopped, and what its end makes of the receipt.

/** Extra raw output kept beyond the stored tail, so redaction sees a secret whole before the cut. */
const REDACT_MARGIN = 4096;

export type StopReason = 'cancelled' | 'timed_out' | 'gateway_shutdown';

export class LocalJob {
  proc?: TrackedProcess;
  stopping?: { reason: StopReason; killAt: number; killed?: boolean };
  cgroup?: CgroupLimit;
  /** Settles when the job's end is recorded (or its launch failed). */
  readonly done: Promise<void>;
  readonly settle: () => void;
  private tail = '';
  private bytes = 0;
  /** Whether output has been dropped from the front of `tail`. */
  private dropped = false;
  /** A PTY job's lines still on its screen (not yet in `tail`; replaced, never appended). */
  private screen = '';
  private dirty = false;

  constructor(
    readonly id: string,
    /** Fixed at admission. */
    readonly deadlineAt: number,
    readonly exitFile: string,
    /** How much of the output the receipt keeps (limits.jobOutputTailChars). */
    private readonly tailChars: number,
    /** The job's command: which mode its output is redacted in (core/result.ts storedCommandOutput). */
    readonly command = '',
    /** The gateway's HERMES_HOME (its config.yaml is a secret-bearing file a command may print) and the job's workdir (where its relative operands are). */
    private readonly place: CommandPlace = {},
  ) {
    let settle!: () => void;
    this.done = new Promise<void>((resolve) => (settle = resolve));
    this.settle = settle;
  }

  onOutput(data: string): void {
    this.bytes += Buffer.byteLength(data);
    const kept = this.tail + data;
    if (kept.length > this.tailChars + REDACT_MARGIN) this.dropped = true;
    this.tail = kept.slice(-(this.tailChars + REDACT_MARGIN));
    this.dirty = true;
  }

  onScreen(screen: string): void {
    this.screen = screen;
    this.dirty = true;
  }

  /** Whether output arrived since the last call (which clears it). */
  takeDirty(): boolean {
    const dirty = this.dirty;
    this.dirty = false;
    return dirty;
  }

  /**
   * The receipt's output: the tail redacted as its command's output (as the terminal's is),
   * ANSI-free, its last `tailChars` characters; the same tail with its colours when the output has
   * any (its visible text is the tail's exactly, so it holds nothing more: core/styled.ts); the
   * output's bytes so far, a PTY job's screen counted as the text it is now; and whether the tail
   * is only the end of the output.
   */
  receiptOutput(): ReceiptOutput {
    const raw = this.tail + this.screen;
    const text = storedCommandOutput(stripAnsi(raw), this.command, this.place);
    const tail = text.slice(-this.tailChars);
    return { tail, styled: styledTwin(raw, tail) ?? null, bytes: this.bytes + Buffer.byteLength(this.screen), truncated: this.dropped || tail.length < text.length };
  }

  /** How the job ended, from why it was stopped, how its process ended, or its worker's exit record. */
  completion(proc: TrackedProcess): Completion {
    const base = { output: this.receiptOutput() };
    if (this.stopping) {
      const reason = this.stopping.reason;
      return {
        ...base,
        state: reason === 'timed_out' ? 'timed_out' : 'cancelled',
        exitCode: proc.exitCode ?? null,
        signal: proc.exitSignal ?? (this.stopping.killed ? 'SIGKILL' : null),
        reason: reason === 'timed_out' ? 'max_runtime_exceeded' : reason === 'gateway_shutdown' ? 'gateway_shutdown' : 'cancelled_by_request',
      };
    }
    if (proc.completionReason === 'exited') {
      const signal = proc.exitSignal ?? null;
      return { ...base, state: proc.exitCode === 0 ? 'succeeded' : 'failed', exitCode: proc.exitCode ?? null, signal, reason: signal ? `signal ${signal}` : 'exited' };
    }
    if (proc.completionReason === 'killed') return { ...base, state: 'cancelled', exitCode: null, signal: 'SIGKILL', reason: 'killed_via_process_manage' };
    return { ...base, ...(completionFromRecord(readExitRecord(this.exitFile)) ?? { state: 'unknown', exitCode: null, signal: null, reason: 'worker_lost_completion_unproven' }) };
  }
}
