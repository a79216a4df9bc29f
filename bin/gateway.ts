#!/usr/bin/env -S node --max-semi-space-size=2
import { handleBinArguments } from './arguments.js';
import { ConfigError } from '../supervisor/platform/config.js';
import { describeSources, loadGatewayConfig } from '../supervisor/platform/environment.js';
import { becomeSubreaper } from '../shared/subreaper.js';
import { startGateway, type RunningGateway } from '../supervisor/compose/index.js';
import { createLogger } from '../supervisor/platform/telemetry.js';
import { reportStartup } from '../supervisor/http/startup-summary.js';

// `hermes-mcp-gateway`: serve with embedded defaults (127.0.0.1:3060, HERMES_HOME=~/.hermes).
// Every setting comes from the environment (docs/configuration.md); the only arguments are
// --help, --version, --log-format and the one subcommand, `doctor` (a read-only check of the same
// configuration); anything else is a usage error rather than a server started anyway.

const USAGE = `usage: hermes-mcp-gateway [--help | --version | --log-format json|pretty]
       hermes-mcp-gateway doctor [--json]   check the configuration and every backend, then exit

  --log-format                     how the log on stderr is written (HERMES_MCP_LOG_FORMAT): pretty
                                   lines on a terminal, JSON otherwise (default)

Serves one localhost-only MCP endpoint for a Hermes Agent host:
  POST http://127.0.0.1:3060/mcp   MCP (2026-07-28 sessionless and the 2025 session-based revisions)
  GET  /healthz                    liveness (never calls a provider)
  GET  /readyz                     readiness: 200 when every required component is ready, else 503
                                   with a reason and what to do for each

Configuration is read from the environment, over $HERMES_HOME/.env, for example:
  HERMES_HOME                      Hermes home (default ~/.hermes)
  HERMES_MCP_PORT, HERMES_MCP_HOST listen port (default 3060) and loopback address (127.0.0.1)
  HERMES_MCP_ROOTS                 colon-separated project roots the tools may use (default ~/work)
  HERMES_MCP_OPTIONAL_COMPONENTS   e.g. memory, to run without Honcho
  HERMES_MCP_<LIMIT>               any limit of policy/default-limits.json, e.g. HERMES_MCP_MAX_OUTPUT_CHARS
  HERMES_MCP_PUBLIC_URL            the https URL a tunnel serves this under: OAuth and credentials on (docs/connect-chatgpt.md)
docs/configuration.md lists every setting. SIGTERM drains and stops; SIGUSR1/SIGUSR2 pause/resume job starts.

Operator CLI for job admission: hermes-mcp-admission --help
Operator CLI for access (approvals, OAuth clients, static tokens): hermes-mcp-auth --help
In a checkout (the bins are not on PATH) run them through npm, from the checkout:
  npm run gateway -- doctor, npm run admission -- --help, npm run auth -- --help
or as node dist/bin/gateway.js, node dist/bin/admission.js, node dist/bin/auth.js.
`;

async function main(): Promise<void> {
  if (process.argv[2] === 'doctor') {
    // Imported only for this subcommand: the gateway itself never loads the doctor's modules.
    const { doctorMain } = await import('../supervisor/doctor/index.js');
    const code = await doctorMain(process.argv.slice(3), process.env);
    // Exit once the report is written: a backend's keep-alive socket must not hold the command open.
    process.stdout.write('', () => process.exit(code));
    return;
  }
  const served = handleBinArguments('hermes-mcp-gateway', USAGE, process.argv.slice(2), { logFormat: true });
  if (!served) return;
  let config, sources;
  try {
    ({ config, sources } = loadGatewayConfig(process.env));
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`hermes-mcp-gateway: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  // The log goes to stderr: lines for a person when that is a terminal, JSON for services and pipes.
  const format = served.logFormat ?? (config.logFormat === 'auto' ? (process.stderr.isTTY ? 'pretty' : 'json') : config.logFormat);
  const log = createLogger(config.logLevel, undefined, format);
  // Controlled shutdown in two bounded phases of shutdownGraceSeconds each: drain (no new requests,
  // running calls finish and answer), then stop workers and jobs, close the listener and exit
  // (forced if that phase overruns). Taken before the gateway starts: a SIGTERM that arrives while
  // it starts (systemd stopping a unit that is still coming up, or right after `listening` is
  // written) waits for the start and then stops it the same way, instead of the signal's default
  // action killing the process with its work half set up.
  let started: Promise<RunningGateway> | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.limits.shutdownGraceSeconds * 1000;
    log.info({ event: 'shutdown', signal }, 'shutting down: draining');
    // Signal handlers run from the event loop, so the start has begun by then; a start that fails
    // is reported, and the process ended, where it is awaited below.
    const running = await started?.catch(() => undefined);
    if (!running) return;
    const drained = await running.drain(graceMs);
    log.info({ event: 'drained', ...drained }, drained.drained ? 'drained' : 'drain timed out; stopping what still runs');
    const force = setTimeout(() => process.exit(1), graceMs);
    force.unref();
    running.close().then(
      () => log.flush(() => process.exit(0)),
      () => log.flush(() => process.exit(1)),
    );
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  for (const { event, message, fields } of describeSources(sources)) log.info({ event, ...fields }, message);
  // Orphans of a worker's tree re-parent to us rather than to PID 1, so the fallback sweep can
  // still find and reap them (inside PID namespaces nothing ever re-parents here).
  if (!becomeSubreaper()) log.warn({ event: 'subreaper_unavailable' }, 'could not become a child subreaper (native addon missing?)');
  started = startGateway({ config, log });
  const running = await started;
  // On a terminal (or --log-format pretty): what serves, what is not ready and what to do, a first client command.
  if (format === 'pretty') void reportStartup(running, { authRequired: config.auth.required }).catch((e: unknown) => log.warn({ event: 'startup_summary_failed', err: e }));
  // The local operator's pause: SIGUSR1 stops fresh job starts on this process, SIGUSR2 resumes
  // them. Running jobs, status, cancel and authorized repeat starts are unaffected.
  const onSignal = (signal: 'SIGUSR1' | 'SIGUSR2') => {
    log.info({ event: 'signal', signal }, signal === 'SIGUSR1' ? 'SIGUSR1: pausing fresh job starts' : 'SIGUSR2: resuming fresh job starts');
    running.jobs.setSignalPause(signal === 'SIGUSR1');
    log.flush(); // an operator's action shows in the journal at once, not when the buffer fills
  };
  process.on('SIGUSR1', () => onSignal('SIGUSR1'));
  process.on('SIGUSR2', () => onSignal('SIGUSR2'));
}

/** Why the gateway did not start; a listen address in use names the settings that choose another. */
function startFailure(e: unknown): string {
  const error = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (error.code === 'EADDRINUSE') {
    return `${error.address ?? 'the address'}:${error.port ?? '?'} is already in use (another gateway, or one left by a stopped run?): stop it, or set HERMES_MCP_PORT (and HERMES_MCP_HOST) to a free address`;
  }
  return e instanceof Error ? e.message : String(e);
}

main().catch((e) => {
  process.stderr.write(`hermes-mcp-gateway: failed to start: ${startFailure(e)}\n`);
  // A setting or a file to fix (exit 2, as for the configuration read first), or a failure (1).
  process.exit(e instanceof ConfigError ? 2 : 1);
});
