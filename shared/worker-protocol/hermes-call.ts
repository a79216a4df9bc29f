import { defineProtocol, type ReadyMessage } from './protocol.js';

// A Hermes call worker (workers/hermes-call/run.py): one short-lived process of the Hermes
// interpreter the gateway fronts, started for one call of one of Hermes' own functions and gone
// after it. It says 'ready', takes exactly one 'call' (a module of workers/hermes-call/ and one of
// its operations, with a JSON payload), answers one 'result' and exits. The worker is Python and
// cannot import this module: run.py is kept matching these types by hand.

/** The modules a call may name: each a file workers/hermes-call/<module>.py with `handle(op, payload)`. */
export type HermesCallModule = 'documents' | 'cron';

/**
 * Why a call has no value: Hermes' function raised (`raised`: "Type: message"), or this Hermes does
 * not have what the operation needs (`unsupported`: an import or attribute Hermes lacks), or the
 * module or operation is not one run.py knows (`unknown`).
 */
export type HermesCallFailure = { kind: 'raised' | 'unsupported' | 'unknown'; message: string };

export type HermesCallProtocol = {
  toWorker: { type: 'call'; id: string; module: HermesCallModule; op: string; payload: unknown };
  fromWorker: ReadyMessage | { type: 'result'; id: string; value?: unknown; failure?: HermesCallFailure };
  replies: { call: { type: 'result'; id: string; value?: unknown; failure?: HermesCallFailure } };
};

export const hermesCallProtocol = defineProtocol<HermesCallProtocol>('Hermes call worker', {
  toWorker: { call: true },
  fromWorker: { ready: true, result: true },
  replies: { call: 'result' },
});
