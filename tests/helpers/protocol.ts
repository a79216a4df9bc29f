import assert from 'node:assert/strict';
import { encodeFrame, type Frame, type FrameError } from '../../shared/worker-protocol/frame.js';
import { messageDecoder, type ProtocolMessages, type WorkerProtocol } from '../../shared/worker-protocol/protocol.js';

// Checks of one worker kind's protocol table, for the tests of shared/worker-protocol/<kind>.ts.

/** Type names no worker kind speaks. */
const FOREIGN = ['', 'READY', 'toString', 'constructor', '__proto__', 'hello'];

/**
 * Each direction accepts exactly the names listed for it: every listed name is accepted, and the
 * other direction's names (unless listed for both) and a few foreign names are refused.
 */
export function assertTypeNames<P extends ProtocolMessages>(protocol: WorkerProtocol<P>, names: { toWorker: string[]; fromWorker: string[] }): void {
  for (const type of names.toWorker) assert.equal(protocol.isToWorker({ type }), true, `${protocol.kind}: to worker ${type}`);
  for (const type of names.fromWorker) assert.equal(protocol.isFromWorker({ type }), true, `${protocol.kind}: from worker ${type}`);
  for (const type of [...names.fromWorker, ...FOREIGN]) {
    if (!names.toWorker.includes(type)) assert.equal(protocol.isToWorker({ type }), false, `${protocol.kind}: ${type} is not sent to the worker`);
  }
  for (const type of [...names.toWorker, ...FOREIGN]) {
    if (!names.fromWorker.includes(type)) assert.equal(protocol.isFromWorker({ type }), false, `${protocol.kind}: ${type} is not sent by the worker`);
  }
}

/** What a supervisor-side decoder of this protocol delivers for `frames` sent by the worker, and its error. */
export function decodeFromWorker<P extends ProtocolMessages>(protocol: WorkerProtocol<P>, frames: Frame[]): { messages: Frame[]; error?: string } {
  const messages: Frame[] = [];
  const errors: FrameError[] = [];
  const decoder = messageDecoder(protocol.isFromWorker, (m) => messages.push(m), (e) => errors.push(e), 1 << 20);
  decoder.push(Buffer.concat(frames.map((f) => encodeFrame(f))));
  return errors.length > 0 ? { messages, error: errors[0]!.message } : { messages };
}
