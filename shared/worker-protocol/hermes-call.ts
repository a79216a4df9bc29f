import { defineProtocol, type ReadyMessage } from './protocol.js';

// A Hermes call worker (workers/hermes-call/run.py): one short-lived process of the Hermes
// interpreter the gateway fronts, started for one call of one of Hermes' own functions and gone
// after it. It says 'ready', takes exactly one 'call' (a module of workers/hermes-call/ and one of
// its operations, with a JSON payload), answers one 'result' and exits. The worker is Python and
// cannot import this module: run.py is kept matching these types by hand.
//
// The commit handshake: an operation that changes Hermes' durable state (a cron mutation) first
// does everything that changes nothing (imports, waiting for Hermes' lock), then sends
// 'committing' with the call's id and blocks until the gateway answers 'proceed' with that id.
// Only then does Hermes' change begin: the gateway sends 'proceed' only while the call is neither
// cancelled nor past its budget, so a call stopped before it is known to have written nothing.
// Anything but the matching 'proceed' (or the channel closing) ends the worker before it touches
// anything. An operation that changes nothing never sends 'committing'.

/** The modules a call may name: each a file workers/hermes-call/<module>.py with `handle(op, payload, commit)`. */
export type HermesCallModule = 'documents' | 'cron' | 'lint';

/**
 * Why a call has no value: Hermes' function raised (`raised`: "Type: message"), or this Hermes does
 * not have what the operation needs (`unsupported`: an import or attribute Hermes lacks), or the
 * module or operation is not one run.py knows (`unknown`).
 */
export type HermesCallFailure = { kind: 'raised' | 'unsupported' | 'unknown'; message: string };

export type HermesCallProtocol = {
  toWorker:
    | { type: 'call'; id: string; module: HermesCallModule; op: string; payload: unknown }
    /** The answer to 'committing' (the call's id): go on with the change. Not a request. */
    | { type: 'proceed'; id: string };
  fromWorker:
    | ReadyMessage
    /** The call `id` is about to change Hermes' state and waits for 'proceed'. */
    | { type: 'committing'; id: string }
    | { type: 'result'; id: string; value?: unknown; failure?: HermesCallFailure };
  replies: { call: { type: 'result'; id: string; value?: unknown; failure?: HermesCallFailure } };
};

export const hermesCallProtocol = defineProtocol<HermesCallProtocol>('Hermes call worker', {
  toWorker: { call: true, proceed: true },
  fromWorker: { ready: true, committing: true, result: true },
  replies: { call: 'result' },
});
