import type { Socket } from 'node:net';
import { errorLine } from './requests.js';

// The one connection a script's RPC socket accepts: newline-delimited requests, served strictly
// one at a time and in order, a request line bounded in length, and an idle timeout that is
// paused while a call runs (Hermes only times out inside recv).

const RPC_IDLE_TIMEOUT_MS = 300_000;

/**
 * Serves `socket`: each complete line goes to `handleLine` in turn, its response (if any) is
 * written back. A line over `maxRequestBytes` gets one error line and the connection is closed.
 */
export function serveConnection(socket: Socket, handleLine: (raw: Buffer) => Promise<string | null>, maxRequestBytes: number): void {
  let parts: Buffer[] = [];
  let partLength = 0;
  const queue: Buffer[] = [];
  let pumping = false;
  let dead = false;

  socket.on('error', () => {
    /* peer vanished: 'close' follows */
  });
  socket.on('close', () => {
    dead = true;
    queue.length = 0;
    parts = [];
  });
  socket.setTimeout(RPC_IDLE_TIMEOUT_MS);
  socket.on('timeout', () => socket.destroy());

  function overflow(): void {
    dead = true;
    queue.length = 0;
    parts = [];
    socket.pause();
    socket.end(errorLine(`Invalid RPC request: request line exceeds ${maxRequestBytes} bytes`) + '\n', () =>
      socket.destroy(),
    );
  }

  async function pump(): Promise<void> {
    pumping = true;
    // Strictly serial, like Hermes' single thread: stop reading (bounding what queues up) and
    // stop the idle clock while a call runs.
    socket.pause();
    socket.setTimeout(0);
    try {
      while (queue.length > 0 && !dead) {
        const response = await handleLine(queue.shift()!);
        if (response === null || dead) continue;
        socket.write(response + '\n');
      }
    } finally {
      pumping = false;
      if (!dead) {
        socket.setTimeout(RPC_IDLE_TIMEOUT_MS);
        socket.resume();
      }
    }
  }

  socket.on('data', (chunk: Buffer) => {
    if (dead) return;
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(0x0a, start)) !== -1) {
      const piece = chunk.subarray(start, nl);
      if (partLength + piece.length > maxRequestBytes) return overflow();
      queue.push(parts.length > 0 ? Buffer.concat([...parts, piece]) : piece);
      parts = [];
      partLength = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (partLength + rest.length > maxRequestBytes) return overflow();
      parts.push(rest);
      partLength += rest.length;
    }
    if (queue.length > 0 && !pumping) void pump();
  });
}

