import { Socket } from 'node:net';
import { encodeFrame, FrameDecoder, type Frame } from '../../shared/frame.js';

// Worker side of the supervisor pipe (fd 3). When the pipe closes the supervisor is gone (or gave
// up on us): the worker must not outlive it, so `onClose` runs the worker's cleanup and exits.

export interface SupervisorChannel {
  send(frame: Frame): void;
}

export function openSupervisorChannel(onFrame: (frame: Frame) => void, onClose: () => void): SupervisorChannel {
  const socket = new Socket({ fd: 3, readable: true, writable: true });
  const decoder = new FrameDecoder(onFrame, (error) => {
    process.stderr.write(`worker: ${error.message}; closing\n`);
    socket.destroy();
  });
  socket.on('data', (chunk: Buffer) => decoder.push(chunk));
  socket.on('close', onClose);
  socket.on('error', () => socket.destroy());
  return {
    send(frame) {
      if (!socket.destroyed) socket.write(encodeFrame(frame));
    },
  };
}
