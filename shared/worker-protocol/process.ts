import { defineProtocol, type ReadyMessage } from './protocol.js';

// A process worker (workers/process-worker.ts): one tracked background process, started by the jobs
// adapter, with nothing correlated by id. After 'start', the command's output streams back as it
// comes and 'exit' ends the conversation. 'terminate' is the polite step (SIGTERM to everything
// started), 'kill' the final one. With `exitFile` the outcome is also written there before 'exit'.

export type ProcessProtocol = {
  toWorker:
    | { type: 'start'; command: string; cwd: string; exitFile?: string }
    | { type: 'stdin'; data: string }
    | { type: 'close-stdin' }
    | { type: 'terminate' }
    | { type: 'kill' };
  fromWorker:
    | ReadyMessage
    /** The command's process exists (its pid in the worker's namespace, when Node reports one). */
    | { type: 'started'; pid?: number }
    | { type: 'output'; data: string }
    /** `signal` is the signal's name; `killed` when the supervisor's 'kill' ended it. */
    | { type: 'exit'; exitCode: number | null; signal: string | null; killed: boolean };
  replies: Record<never, never>;
};

export const processProtocol = defineProtocol<ProcessProtocol>('process worker', {
  toWorker: { start: true, stdin: true, 'close-stdin': true, terminate: true, kill: true },
  fromWorker: { ready: true, started: true, output: true, exit: true },
  replies: {},
});
