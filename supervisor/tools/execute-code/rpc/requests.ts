import { createHash, timingSafeEqual } from 'node:crypto';

// One request line of a script's tool RPC to its response line, with Hermes' checks in Hermes'
// order (server.ts lists them): parse, token, allowlist, call cap, terminal's blocked arguments,
// dispatch. Counts the dispatched calls.

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

export function errorLine(message: string): string {
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

/** What a request handler needs: the token, the tools granted, the call cap and the dispatch. */
export interface RequestRules {
  token: string;
  allowed: readonly string[];
  maxCalls: number;
  dispatch: (tool: string, args: Record<string, unknown>) => Promise<unknown>;
}

export interface RequestHandler {
  /** One request line → one response line, or null for a blank line (no response). */
  handleLine(raw: Buffer): Promise<string | null>;
  /** Dispatched calls so far (refusals excluded). */
  callsMade(): number;
}

export function requestHandler(rules: RequestRules): RequestHandler {
  const { maxCalls, dispatch } = rules;
  const allowed: ReadonlySet<string> = new Set(rules.allowed);
  const available = [...allowed].sort().join(', ');
  // Both sides hashed first, so the compare is constant-time and leaks not even the length.
  const expectedDigest = sha256(rules.token);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let calls = 0;

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

  return { handleLine, callsMade: () => calls };
}
