import { Socket } from 'node:net';
import { takeFrameCap } from '../../shared/worker-protocol/caps.js';
import { encodeFrame } from '../../shared/worker-protocol/frame.js';
import { messageDecoder, type ProtocolMessages, type WorkerProtocol } from '../../shared/worker-protocol/protocol.js';

// Worker side of the supervisor pipe (fd 3), in the worker's own protocol: what arrives is one of
// the messages its kind is sent (anything else, like a malformed or oversized frame, closes the
// channel), and send() takes only the messages its kind may send. The frame cap is the one the
// supervisor handed over at spawn. When the pipe closes the supervisor is gone (or gave up on us):
// the worker must not outlive it, so `onClose` runs the worker's cleanup and exits.

export interface SupervisorChannel<P extends ProtocolMessages> {
  send(message: P['fromWorker']): void;
  /**
   * Resolves once everything sent so far has been handed to the OS (or the channel is gone), or
   * after `ms`: a worker about to exit waits for this, or its last frames die with it.
   */
  flushed(ms: number): Promise<void>;
}

export function openSupervisorChannel<P extends ProtocolMessages>(
  protocol: WorkerProtocol<P>,
  onMessage: (message: P['toWorker']) => void,
  onClose: () => void,
): SupervisorChannel<P> {
  const maxBytes = takeFrameCap(process.env);
  const socket = new Socket({ fd: 3, readable: true, writable: true });
  const decoder = messageDecoder(protocol.isToWorker, onMessage, (error) => {
    process.stderr.write(`worker: ${error.message}; closing\n`);
    socket.destroy();
  }, maxBytes);
  socket.on('data', (chunk: Buffer) => decoder.push(chunk));
  socket.on('close', onClose);
  socket.on('error', () => socket.destroy());
  let lastWrite: Promise<void> = Promise.resolve();
  return {
    send(message) {
      if (!socket.destroyed) {
        const frame = encodeFrame(message, maxBytes);
        lastWrite = new Promise((resolve) => socket.write(frame, () => resolve()));
      }
    },
    flushed(ms) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      return Promise.race([lastWrite, late]).finally(() => clearTimeout(timer));
    },
  };
}
