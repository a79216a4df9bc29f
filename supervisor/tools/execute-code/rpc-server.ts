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
//          (a gateway tool's error arrives as an outcome instead, shaped by rpcReplyFor below:
//          {"error": "<message>", "code": "<CODE>", ...the error's fields})
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

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { ToolOutcome } from '../../core/tool-types.js';

/**
 * `terminal` arguments a sandbox script may not use (Hermes `_TERMINAL_BLOCKED_PARAMS`, with the
 * notify, heartbeat and persist_on_release of Hermes 0.22.2, tools/code_execution_rpc.py). Dropped
 * whatever the Hermes followed: an older Hermes ignores them anyway.
 */
const TERMINAL_BLOCKED_PARAMS: readonly string[] = Object.freeze([
  'background',
  'pty',
  'notify_on_complete',
  'watch_patterns',
  'notify',
  'heartbeat',
  'persist_on_release',
]);

const DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const RPC_IDLE_TIMEOUT_MS = 300_000;
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

/**
 * A gateway tool's outcome as the reply Hermes' tools give a script: the structured value, or for
 * an error Hermes' shape, `{"error": "<message>", ...the error's fields}`, plus the stable code as
 * `code` (as Hermes' tool answers, e.g. read_file's `similar_files` and ReadResult fields). The
 * Dispatcher has already mapped the error (a stable code and a clear message; an internal error is
 * the generic message, its details only in the gateway log), so nothing internal reaches the
 * script from here.
 */
export function rpcReplyFor(outcome: ToolOutcome): Record<string, unknown> {
  const value = outcome.structured ?? {};
  if (!outcome.isError) return value;
  const { error: code, message, ...fields } = value;
  if (typeof message !== 'string') return { error: typeof code === 'string' ? code : 'the tool failed' };
  return typeof code === 'string' ? { ...fields, error: message, code } : { ...fields, error: message };
}

function errorLine(message: string): string {
  return JSON.stringify({ error: message });
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Python `bytes.strip()` whitespace: space, \t, \n, \r, \v, \f. */
function isAsciiSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

function stripLine(line: Buffer): Buffer {
  let s = 0;
  let e = line.length;
  while (s < e && isAsciiSpace(line[s]!)) s++;
  while (e > s && isAsciiSpace(line[e - 1]!)) e--;
  return line.subarray(s, e);
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const { dir, token, maxCalls, dispatch } = options;
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  if (typeof token !== 'string' || token.length === 0) throw new RangeError('token must be a non-empty string');
  if (!Number.isInteger(maxCalls) || maxCalls < 0) throw new RangeError('maxCalls must be a non-negative integer');
  if (!Number.isInteger(maxRequestBytes) || maxRequestBytes < 1) throw new RangeError('maxRequestBytes must be a positive integer');

  const path = join(dir, `hermes_rpc_${randomBytes(16).toString('hex')}.sock`);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new RangeError(`socket path is ${Buffer.byteLength(path)} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit: ${path}`);
  }

  const allowed: ReadonlySet<string> = new Set(options.allowed);
  const available = [...allowed].sort().join(', ');
  // Both sides hashed first, so the compare is constant-time and leaks not even the length.
  const expectedDigest = sha256(token);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  let calls = 0;
  let accepted = false;
  let closing: Promise<void> | undefined;
  let connection: Socket | undefined;

  function tokenOk(provided: unknown): boolean {
    if (typeof provided !== 'string' || provided.length === 0) return false;
    return timingSafeEqual(sha256(provided), expectedDigest);
  }

  /** One request line → one response line, or null for a blank line (no response). */
  async function handleLine(raw: Buffer): Promise<string | null> {
    const line = stripLine(raw);
    if (line.length === 0) return null;
    let request: unknown;
    try {
      request = JSON.parse(decoder.decode(line));
    } catch (e) {
      return errorLine(`Invalid RPC request: ${messageOf(e)}`);
    }
    if (!isObject(request)) return errorLine('Invalid RPC request: expected a JSON object');
    if (!tokenOk(request.token)) return errorLine('Unauthorized RPC request');

    const tool = Object.hasOwn(request, 'tool') ? request.tool : '';
    if (typeof tool !== 'string' || !allowed.has(tool)) {
      const shown = typeof tool === 'string' ? tool : JSON.stringify(tool);
      return errorLine(`Tool '${shown}' is not available in execute_code. Available: ${available}`);
    }
    if (calls >= maxCalls) {
      return errorLine(`Tool call limit reached (${maxCalls}). No more tool calls allowed in this execution.`);
    }

    const rawArgs = Object.hasOwn(request, 'args') ? request.args : {};
    let response: string;
    if (!isObject(rawArgs)) {
      response = errorLine('Invalid RPC request: args must be a JSON object');
    } else {
      const args: Record<string, unknown> = { ...rawArgs };
      if (tool === 'terminal') for (const p of TERMINAL_BLOCKED_PARAMS) delete args[p];
      try {
        const value = await dispatch(tool, args);
        response = JSON.stringify(value === undefined ? null : value) ?? 'null';
      } catch (e) {
        response = errorLine(messageOf(e));
      }
    }
    calls++;
    return response;
  }

  function serve(socket: Socket): void {
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

  const server: Server = createServer((socket) => {
    if (accepted || closing) {
      socket.destroy();
      return;
    }
    accepted = true;
    connection = socket;
    serve(socket);
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
    callsMade: () => calls,
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
