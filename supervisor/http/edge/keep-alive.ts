import type { ServerOptions } from 'node:http';
import type { Limits } from '../../../shared/limits.js';

// Forwarders keep idle upstream connections open for a long time (cloudflared and Go's
// http.Transport 90 s, nginx's upstream keepalive 60 s); with Node's 5 s keep-alive one reuses a
// connection just as the gateway closes it, the POST gets a reset and is not retried. Every
// listener the gateway opens (the MCP port and the bridge profile's MCP_PORT) keeps connections
// open longer than any of them.
export function listenerTimeouts(limits: Limits): Pick<ServerOptions, 'keepAliveTimeout' | 'headersTimeout' | 'requestTimeout'> {
  return {
    keepAliveTimeout: limits.httpKeepAliveTimeoutSeconds * 1000,
    headersTimeout: limits.httpHeadersTimeoutSeconds * 1000,
    requestTimeout: limits.httpRequestTimeoutSeconds * 1000,
  };
}
