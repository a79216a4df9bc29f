import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { Limits } from '../../../../shared/limits.js';
import type { TerminalSize } from '../../../../shared/worker-protocol/process.js';
import type { TrackedProcess } from './registry.js';

// Input to a background process (process_manage and job_input write/submit/close/resize), and what
// changes when it runs on a pseudo-terminal (a PTY job): the window size it may have, what `submit`
// sends, and how its output reads. The worker renders a PTY's
// output (workers/pty/): finished lines arrive as ordinary output, the lines still on the screen as
// a snapshot that replaces the previous one; a reader sees the two together.

/** The emulator's own floor: narrower or shorter is not a terminal. */
const MIN_SIZE: TerminalSize = { cols: 2, rows: 1 };

/** JSON-schema properties for a window size, bounded by the configured limits. */
export function terminalSizeProperties(limits: Limits): Record<'cols' | 'rows', Record<string, unknown>> {
  return {
    cols: { type: 'integer', minimum: MIN_SIZE.cols, maximum: limits.ptyMaxCols, description: `Terminal width in columns (PTY only; default ${limits.ptyDefaultCols}).` },
    rows: { type: 'integer', minimum: MIN_SIZE.rows, maximum: limits.ptyMaxRows, description: `Terminal height in rows (PTY only; default ${limits.ptyDefaultRows}).` },
  };
}

/** The output as a reader sees it: finished lines, then what is still on the screen. */
export function visibleOutput(p: TrackedProcess): string {
  if (!p.terminal || p.screen === '') return p.output;
  return p.output + p.screen;
}

/** What `submit` appends: Enter on a terminal is a carriage return (ICRNL makes it "\n" for the reader). */
function enterKey(p: TrackedProcess): string {
  return p.terminal ? '\r' : '\n';
}

export const INPUT_ACTIONS = ['write', 'submit', 'close', 'resize'] as const;
export type InputAction = (typeof INPUT_ACTIONS)[number];

/** JSON-schema properties of the input actions' arguments (besides the action itself). */
export function inputProperties(limits: Limits): Record<string, Record<string, unknown>> {
  return { data: { type: 'string', maxLength: 65536 }, ...terminalSizeProperties(limits) };
}

/** Input to a process that has ended: Hermes' already_exited answer, under the gateway's code. */
function alreadyFinished(): GatewayError {
  return new GatewayError(ErrorCode.PROCESS_NOT_RUNNING, 'Process has already finished', { status: 'already_exited' });
}

/** One input action on a process; the answer both tools give. What is written is never logged or kept. */
export function sendInput(p: TrackedProcess, action: InputAction, args: { data?: unknown; cols?: unknown; rows?: unknown }): Record<string, unknown> {
  switch (action) {
    case 'write':
    case 'submit': {
      if (p.exited) throw alreadyFinished();
      const data = String(args.data ?? '') + (action === 'submit' ? enterKey(p) : '');
      p.worker.send({ type: 'stdin', data });
      return { status: 'ok', bytes_written: Buffer.byteLength(data) };
    }
    case 'close':
      if (p.exited) throw alreadyFinished();
      p.worker.send({ type: 'close-stdin' });
      return { status: 'ok', message: p.terminal ? 'EOF sent' : 'stdin closed' };
    case 'resize':
      return { status: 'ok', session_id: p.id, ...resizeTerminal(p, args) };
  }
}

/** resize: a new window size for a running PTY process (the other side kept as it is). */
function resizeTerminal(p: TrackedProcess, args: { cols?: unknown; rows?: unknown }): TerminalSize {
  if (!p.terminal) throw new GatewayError(ErrorCode.PROCESS_NOT_A_TTY, `process ${p.id} has no terminal (prepare the job with pty: true to get one); nothing to resize`);
  if (p.exited) throw new GatewayError(ErrorCode.PROCESS_NOT_RUNNING, `process ${p.id} has exited; its terminal is gone`);
  if (args.cols === undefined && args.rows === undefined) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'resize needs cols, rows or both');
  const size = { cols: (args.cols as number | undefined) ?? p.terminal.cols, rows: (args.rows as number | undefined) ?? p.terminal.rows };
  p.terminal = size;
  p.worker.send({ type: 'resize', ...size });
  p.onResize?.(size);
  return size;
}
