import { createServer, type Server } from 'node:net';
import { after, before } from 'node:test';

/**
 * A loopback listener for one test file, standing in for an internal service that must never be
 * reached: it counts the connections it gets and drops each. Listening before the file's tests,
 * closed after them.
 */
export function internalServiceForFile(): { readonly port: number; readonly connections: number } {
  let listener: Server | undefined;
  let port = 0;
  let connections = 0;
  before(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve())));
  return {
    get port() {
      return port;
    },
    get connections() {
      return connections;
    },
  };
}
