import type { ExecMessage, ResultMessage } from './exec.js';
import { defineProtocol, type ReadyMessage } from './protocol.js';

// The terminal worker (workers/terminal-worker.ts): one per owner, long-lived, running that owner's
// foreground commands one at a time in a persistent shell. 'shutdown' asks it to end (its shell and
// everything started with it die first); an 'exec' while another runs is answered with
// `error: 'busy'`.

export type TerminalProtocol = {
  toWorker: ExecMessage | { type: 'shutdown' };
  fromWorker: ReadyMessage | ResultMessage;
  replies: { exec: ResultMessage };
};

export const terminalProtocol = defineProtocol<TerminalProtocol>('terminal worker', {
  toWorker: { exec: true, shutdown: true },
  fromWorker: { ready: true, result: true },
  replies: { exec: 'result' },
});
