import { WORKER_TAG_VAR } from '../shared/proc.js';
import { FrameError } from '../shared/worker-protocol/frame.js';
import { hermesToolsProtocol, type HermesToolResult, type HermesToolsFailure, type HermesToolsProtocol } from '../shared/worker-protocol/hermes-tools.js';
import { RestartPending, UpstreamKeeper } from './hermes-tools/keeper.js';
import { timer, UpstreamFailure } from './mcp-upstream/session.js';
import { killEverythingStarted } from './runtime/reap.js';
import { runWorker } from './runtime/run-worker.js';
import { monotonicMs } from '../shared/clock.js';

// The Hermes tools worker: one long-lived child of the gateway, in its own PID namespace, hosting
// Hermes' own stdio MCP tool server (hermes-tools/keeper.ts keeps it running). The tool server is
// its child, so nothing it starts outlives this worker, and this worker outlives no gateway.
// Requests are taken concurrently and each gets exactly one reply, but the tool server gets one
// request at a time (hermes-tools/lane.ts: Hermes' FastMCP server blocks on each call, and mcp 1.26
// crashes when a request it has read but not started is cancelled). A call past its budget is
// cancelled on the wire (MCP notifications/cancelled), and so is a call whose client went away
// (the supervisor sends 'cancel'); the next request waits until the tool server answers a ping
// (it finished the call it could not stop), and a tool server that does not within
// hermesToolsStuckPingMs is restarted, so one stuck call cannot hold every other one.
//
// It speaks the Hermes tools protocol (shared/worker-protocol/hermes-tools.ts).

let keeper: UpstreamKeeper | undefined;
/** The calls under way, by the supervisor's callId, so a 'cancel' reaches the one it names. */
const running = new Map<string, AbortController>();

type Request = Exclude<HermesToolsProtocol['toWorker'], { type: 'configure' | 'cancel' }>;

/** A failure worded here, already final. */
class Refusal extends Error {
  constructor(readonly failure: HermesToolsFailure) {
    super(failure.message);
  }
}

const channel = runWorker(hermesToolsProtocol, { message: onMessage, lost: shutdown, terminate: shutdown });

function shutdown(): never {
  keeper?.stop();
  killEverythingStarted();
  process.exit(0);
}

/**
 * The tool server's environment: this worker's own, which the supervisor built (Hermes' home, its
 * redaction and quiet switches, the gateway's environment less the gateway's settings and tokens),
 * less the HERMES_MCP_* variables the worker runtime adds for the worker itself (the frame cap is
 * already taken out). The worker tag stays: the fallback isolation modes find escapees by it.
 */
function upstreamEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && (!name.startsWith('HERMES_MCP_') || name === WORKER_TAG_VAR)) env[name] = value;
  }
  return env;
}

function onMessage(message: HermesToolsProtocol['toWorker']): void {
  if (message.type === 'configure') {
    const { type: _type, ...settings } = message;
    if (keeper) return;
    keeper = new UpstreamKeeper(settings, upstreamEnvironment());
    void keeper.open().catch(() => {}); // a failed first start is retried with backoff; status reports it
    return;
  }
  if (message.type === 'cancel') {
    running.get(message.callId)?.abort(new Refusal({ code: 'HERMES_TOOLS_FAILED', message: `the call was cancelled by its client` }));
    return;
  }
  if (!keeper) return reply(message, { code: 'HERMES_TOOLS_FAILED', message: 'the Hermes tools worker was sent a request before its configuration' });
  void serve(keeper, message).catch((e: unknown) => reply(message, failureOf(e, message)));
}

async function serve(tools: UpstreamKeeper, message: Request): Promise<void> {
  switch (message.type) {
    case 'status':
      return channel.send({ type: 'status-result', id: message.id, status: await tools.status(message.pingTimeoutMs) });
    case 'tools': {
      // The first session's list, within the start budget, through a failed start's restart backoff.
      const listed = await tools.firstTools(message.withinMs);
      return channel.send({ type: 'tools-result', id: message.id, tools: listed, ...(tools.server ? { server: tools.server } : {}) });
    }
    case 'call': {
      const cancel = new AbortController();
      running.set(message.callId, cancel);
      try {
        return await serveCall(tools, message, cancel.signal);
      } finally {
        running.delete(message.callId);
      }
    }
  }
}

/**
 * One tools/call within its budget (queueing for the tool server included); `signal` is its
 * client's cancel ('cancel'). The answer is sent as soon as there is one; a call that ended by its
 * client's cancel or its timeout then keeps the lane until the tool server answers a ping (it has
 * finished the call it could not stop) or, past hermesToolsStuckPingMs, is restarted.
 */
async function serveCall(tools: UpstreamKeeper, message: Extract<Request, { type: 'call' }>, signal: AbortSignal): Promise<void> {
  const deadline = monotonicMs() + message.timeoutMs;
  const expiry = timer(message.timeoutMs);
  const waiting = new AbortController();
  const stopWaiting = (reason: unknown) => waiting.abort(reason);
  const onCancel = () => stopWaiting(signal.reason);
  signal.addEventListener('abort', onCancel, { once: true });
  if (signal.aborted) onCancel();
  expiry.promise.catch(() => {
    const busy = tools.lane.busy;
    stopWaiting(new Refusal({ code: 'HERMES_TOOLS_TIMEOUT', message: `the ${message.name} call waited past its ${message.timeoutMs / 1000} s (${message.budgetName}) for Hermes' tool server${busy ? `, busy with ${busy.what}` : ''} (it runs one call at a time); the call was not run` }));
  });
  try {
    await tools.lane.run(message.name, async () => {
      let upstream;
      try {
        upstream = await Promise.race([tools.session(deadline - monotonicMs()), expiry.promise]);
      } catch (e) {
        if (!expiry.expired) throw e;
        throw new Refusal({ code: 'HERMES_TOOLS_TIMEOUT', message: `Hermes' tool server did not come up within the ${message.name} call's ${message.timeoutMs / 1000} s (${message.budgetName}); the call was not run` });
      }
      if (signal.aborted) throw signal.reason;
      let result;
      try {
        result = await upstream.call(message.name, message.arguments, deadline - monotonicMs(), 'cancel', signal);
      } catch (e) {
        const stopped = signal.aborted ? 'its client cancelled it' : e instanceof UpstreamFailure && e.kind === 'timeout' ? `its ${message.timeoutMs / 1000} s budget (${message.budgetName}) ran out` : undefined;
        if (stopped === undefined) throw e;
        reply(message, failureOf(e, message));
        await tools.settle(upstream, `the ${message.name} call, cancelled because ${stopped}`);
        return;
      }
      tools.healthy();
      sendResult(message.id, result);
    }, waiting.signal);
  } finally {
    expiry.cancel();
    signal.removeEventListener('abort', onCancel);
  }
}

function sendResult(id: string, result: HermesToolResult): void {
  try {
    channel.send({ type: 'call-result', id, result });
  } catch (e) {
    // A result larger than the worker transport's frame cap cannot cross it; say so instead.
    if (!(e instanceof FrameError)) throw e;
    channel.send({ type: 'call-result', id, failure: { code: 'HERMES_TOOLS_FAILED', message: `the result is too large for the worker transport (workerTransportMaxBytes): ${e.message}` } });
  }
}

/** The failure as the caller reads it: what happened, to which component, and what comes next. */
function failureOf(e: unknown, message: Request): HermesToolsFailure {
  const subject = message.type === 'call' ? `the ${message.name} call` : 'the request';
  if (e instanceof Refusal) return e.failure;
  if (e instanceof RestartPending) return { code: 'HERMES_TOOLS_UNAVAILABLE', message: `${e.message}; ${subject} was not run` };
  if (!(e instanceof UpstreamFailure)) return { code: 'HERMES_TOOLS_FAILED', message: `the Hermes tools worker failed: ${(e as Error).message ?? String(e)}` };
  const next = keeper?.restartInMs();
  const restart = next !== undefined ? `; it is restarted in ${Math.ceil(next / 1000)} s` : '';
  switch (e.kind) {
    case 'not_installed':
      return { code: 'HERMES_TOOLS_NOT_INSTALLED', message: `Hermes' tool server could not be started (${e.cause}): check HERMES_AGENT_PYTHON / HERMES_AGENT_SRC (or HERMES_MCP_HERMES_TOOLS_COMMAND)${restart}` };
    case 'timeout':
      // A call's own timeout (the open's is below): cancelled on the wire, the session stays
      // (restarted only if it does not come back from the call: hermesToolsStuckPingMs).
      if (message.type === 'call' && keeper?.serving) {
        return { code: 'HERMES_TOOLS_TIMEOUT', message: `Hermes' tool server did not answer ${subject} within ${message.timeoutMs / 1000} s (${message.budgetName}); the call was cancelled on the tool server` };
      }
      return { code: 'HERMES_TOOLS_TIMEOUT', message: `Hermes' tool server did not finish its MCP handshake and tools/list within the start budget (hermesToolsStartupTimeoutSeconds)${restart}` };
    case 'exited':
      return { code: 'HERMES_TOOLS_FAILED', message: `Hermes' tool server (/readyz hermes_tools) exited during ${subject}${e.stderrNote()}${restart}` };
    case 'refused':
      return { code: 'HERMES_TOOLS_FAILED', message: `Hermes' tool server refused ${subject}: ${e.cause}` };
    case 'failed':
      return { code: 'HERMES_TOOLS_FAILED', message: `Hermes' tool server failed to start: ${e.cause}${e.stderrNote()}${restart}` };
  }
}

function reply(message: Request, failure: HermesToolsFailure): void {
  switch (message.type) {
    case 'tools':
      return channel.send({ type: 'tools-result', id: message.id, failure });
    case 'call':
      return channel.send({ type: 'call-result', id: message.id, failure });
    case 'status':
      return channel.send({ type: 'status-result', id: message.id, status: { state: 'restarting', restarts: 0, failures: 0, lastFailure: failure.message } });
  }
}
