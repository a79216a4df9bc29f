import type { ExecMessage, ResultMessage } from './exec.js';
import { defineProtocol, type ReadyMessage } from './protocol.js';

// An execute_code unit, as the supervisor sees it, and the unit's command helper.
//
// The unit's init is workers/execute/unit.py, which cannot import this module: it is kept matching
// these types by hand. unit.py itself speaks 'ready' (the script's interpreter is up, waiting for
// its code on stdin) and 'done' (the script ended and everything else in the unit was killed; then
// the unit exits). It forwards 'exec' to the command helper (workers/execute-commands.ts, started
// at the first one) and the helper's 'result' back, whole; only when the helper cannot be started
// does unit.py answer an 'exec' itself, with a 'result' carrying `error`.

/** The script's end: its exit status, or the number of the signal that killed it. */
export type DoneMessage = { type: 'done'; exitCode: number | null; signal: number | null };

export type ExecuteUnitProtocol = {
  toWorker: ExecMessage;
  fromWorker: ReadyMessage | DoneMessage | ResultMessage;
  replies: { exec: ResultMessage };
};

export const executeUnitProtocol = defineProtocol<ExecuteUnitProtocol>('execute_code unit', {
  toWorker: { exec: true },
  fromWorker: { ready: true, done: true, result: true },
  replies: { exec: 'result' },
});

/** What the command helper speaks with unit.py: the unit protocol's commands, nothing else. */
type ExecuteCommandsProtocol = {
  toWorker: ExecMessage;
  fromWorker: ResultMessage;
  replies: { exec: ResultMessage };
};

export const executeCommandsProtocol = defineProtocol<ExecuteCommandsProtocol>('execute_code command helper', {
  toWorker: { exec: true },
  fromWorker: { result: true },
  replies: { exec: 'result' },
});
