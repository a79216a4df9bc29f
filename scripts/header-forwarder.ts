import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback forwarder that adds one Authorization header to every request, byte for byte
// otherwise (method, path, the caller's own headers including Host, streamed bodies both ways).
// It stands in for an MCP client configured with a static bearer token when the client under test
// cannot send one itself: the conformance suites have no header option, so their authenticated
// run goes through this to a gateway with authentication on.

export interface HeaderForwarder {
  url: string;
  close(): Promise<void>;
}

export async function startHeaderForwarder(upstreamPort: number, authorization: string): Promise<HeaderForwarder> {
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: { ...req.headers, authorization } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
