// The host side of execute_code's tool RPC: a Unix-socket server that the child's `hermes_tools`
// module (workers/execute/hermes_tools.py) calls to run the granted tools.
//
// Port of Hermes Agent's local UDS transport (tools/code_execution_tool.py `_rpc_server_loop` /
// `_handle_rpc_request`), with Hermes' framing, checks, check order and error strings:
//
//   - socket `<dir>/hermes_rpc_<32 hex>.sock`, chmod 0600, exactly ONE accepted connection
//     (Hermes `listen(1)` + a single `accept()`); later connections are closed at once;
//   - newline-delimited JSON, served strictly one request at a time, in order (the protocol has no
//     request ids; the client serialises calls with a lock); blank lines are skipped;
//   - per request, in this order:
//       1. UTF-8 + JSON parse            → {"error": "Invalid RPC request: <why>"}
//       2. token, constant-time compare  → {"error": "Unauthorized RPC request"}
//       3. allowlist                     → {"error": "Tool '<x>' is not available in execute_code. Available: a, b"}
//       4. call cap                      → {"error": "Tool call limit reached (N). No more tool calls allowed in this execution."}
//       5. `terminal`: drop background / pty / notify_on_complete / watch_patterns (and notify /
//          heartbeat / persist_on_release, Hermes 0.22.2's additions)
//       6. dispatch; a thrown error      → {"error": "<message>"}
//          (a gateway tool's error arrives as an outcome instead, shaped by script-tools.ts
//          rpcReplyFor: {"error": "<message>", "code": "<CODE>", ...the error's fields})
//     Refusals (1-4) are free; every dispatched call counts toward the cap, failed or not, and is
//     counted once the dispatch settles (Hermes increments after `handle_function_call` returns);
//   - a connection idle for 300 s is closed (Hermes' `conn.settimeout(300)` on recv; the clock is
//     paused while a dispatch runs, as Hermes only times out inside recv).
//
// Gateway additions/deviations, each deliberate:
//   - a request line longer than `maxRequestBytes` (default 4 MiB) gets one
//     {"error": "Invalid RPC request: request line exceeds N bytes"} and the connection is closed:
//     Hermes buffers without bound;
//   - valid JSON that is not an object gets {"error": "Invalid RPC request: expected a JSON object"}
//     (Hermes' thread would die on `request.get`); `args` present but not an object is a dispatched
//     call that fails with {"error": "Invalid RPC request: args must be a JSON object"} (Hermes hands
//     it to the tool, which fails) and counts toward the cap;
//   - parse-error wording after "Invalid RPC request: " is V8's, not Python's json module's;
//   - the tool result is always sent as `JSON.stringify(result)` (one line by construction): a string
//     result arrives as a JSON string, which the client's double-decode turns back into the parsed
//     value, as with Hermes' raw JSON-string results. `undefined` is sent as `null`;
//   - a non-string `token` never matches (Hermes would compare `str(token)`).

import { randomBytes } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { serveConnection } from './connection.js';
import { requestHandler } from './requests.js';

const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** Linux `sun_path` holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export interface RpcServerOptions {
  /** Directory for the socket file (should be private to the gateway user). */
  dir: string;
  /** The child's HERMES_RPC_TOKEN. Must be non-empty. */
  token: string;
  /** Tools the script may call (Hermes: SANDBOX_ALLOWED_TOOLS ∩ enabled tools). */
  allowed: readonly string[];
  /** Dispatched calls allowed per execution (Hermes default 50). */
  maxCalls: number;
  /** Runs one allowed, budgeted call; its resolved value is the tool result sent back. */
  dispatch: (tool: string, args: Record<string, unknown>) => Promise<unknown>;
  /** Longest accepted request line in bytes, newline excluded. Default 4 MiB. */
  maxRequestBytes?: number;
}

export interface RpcServer {
  /** The socket path, for the child's HERMES_RPC_SOCKET. */
  readonly path: string;
  /** Dispatched calls so far (refusals excluded). */
  callsMade(): number;
  /** Stop listening, drop the connection and remove the socket file. Idempotent. */
  close(): Promise<void>;
}

export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const { dir, token, maxCalls } = options;
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  if (typeof token !== 'string' || token.length === 0) throw new RangeError('token must be a non-empty string');
  if (!Number.isInteger(maxCalls) || maxCalls < 0) throw new RangeError('maxCalls must be a non-negative integer');
  if (!Number.isInteger(maxRequestBytes) || maxRequestBytes < 1) throw new RangeError('maxRequestBytes must be a positive integer');

  const path = join(dir, `hermes_rpc_${randomBytes(16).toString('hex')}.sock`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new RangeError(`socket path is ${Buffer.byteLength(path)} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit: ${path}`);
  }

  const requests = requestHandler({ token, allowed: options.allowed, maxCalls, dispatch: options.dispatch });
  let accepted = false;
  let closing: Promise<void> | undefined;
  let connection: Socket | undefined;

  const server: Server = createServer((socket) => {
    if (accepted || closing) {
      socket.destroy();
      return;
    }
    accepted = true;
    connection = socket;
    serveConnection(socket, requests.handleLine, maxRequestBytes);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => {
    /* a listening UDS server has no recoverable errors; close() still cleans up */
  });

  try {
    await chmod(path, 0o600);
  } catch (e) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(path, { force: true });
    throw e;
  }

  return {
    path,
    callsMade: () => requests.callsMade(),
    close(): Promise<void> {
      closing ??= (async () => {
        connection?.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(path, { force: true });
      })();
      return closing;
    },
  };
}
