import { defineProtocol, type ReadyMessage } from './protocol.js';

// A process worker (workers/process-worker.ts): one tracked background process, started by the jobs
// adapter, with nothing correlated by id. After 'start', the command's output streams back as it
// comes and 'exit' ends the conversation. 'terminate' is the polite step (SIGTERM to everything
// started), 'kill' the final one. With `exitFile` the outcome is also written there before 'exit'.
//
// With `pty` the command runs on a pseudo-terminal of that size. Its output is then rendered by a
// terminal emulator in the worker: 'output' carries only finished lines (text that can no longer
// change: it scrolled off the screen, or the command ended), 'screen' the lines still on the
// screen (a prompt, a progress bar), each 'screen' replacing the one before. 'stdin' goes to the
// terminal, 'close-stdin' sends end-of-input (^D), 'resize' changes the window size.

/** A terminal's window size, in character cells. */
export type TerminalSize = { cols: number; rows: number };

export type ProcessProtocol = {
  toWorker:
    | { type: 'start'; command: string; cwd: string; exitFile?: string; pty?: TerminalSize }
    | { type: 'stdin'; data: string }
    | { type: 'close-stdin' }
    | ({ type: 'resize' } & TerminalSize)
    | { type: 'terminate' }
    | { type: 'kill' };
  fromWorker:
    | ReadyMessage
    /** The command's process exists (its pid in the worker's namespace, when Node reports one). */
    | { type: 'started'; pid?: number }
    | { type: 'output'; data: string }
    /** PTY only: the rendered lines not yet final, replacing the previous 'screen'. */
    | { type: 'screen'; data: string }
    /** `signal` is the signal's name; `killed` when the supervisor's 'kill' ended it. */
    | { type: 'exit'; exitCode: number | null; signal: string | null; killed: boolean };
  replies: Record<never, never>;
};

export const processProtocol = defineProtocol<ProcessProtocol>('process worker', {
  toWorker: { start: true, stdin: true, 'close-stdin': true, resize: true, terminate: true, kill: true },
  fromWorker: { ready: true, started: true, output: true, screen: true, exit: true },
  replies: {},
});
