#!/usr/bin/env -S node --max-semi-space-size=2
import { ConfigError, loadConfig } from './config.js';
import { becomeSubreaper } from '../shared/subreaper.js';
import { startGateway } from './server.js';
import { createLogger } from './telemetry.js';

// `hermes-mcp-gateway`: serve with embedded defaults (127.0.0.1:3060, HERMES_HOME=~/.hermes).

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`hermes-mcp-gateway: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  // Orphans of a worker's tree re-parent to us rather than to PID 1, so the fallback sweep can
  // still find and reap them (inside PID namespaces nothing ever re-parents here).
  if (!becomeSubreaper()) log.warn({ event: 'subreaper_unavailable' }, 'could not become a child subreaper (native addon missing?)');
  const running = await startGateway({ config, log });
  let stopping = false;
  // Controlled shutdown in two bounded phases of shutdownGraceSeconds each: drain (no new requests,
  // running calls finish and answer), then stop workers and jobs, close the listener and exit
  // (forced if that phase overruns).
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.limits.shutdownGraceSeconds * 1000;
    log.info({ event: 'shutdown', signal }, 'shutting down: draining');
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
  // The local operator's pause: SIGUSR1 stops fresh job starts on this process, SIGUSR2 resumes
  // them. Running jobs, status, cancel and authorized repeat starts are unaffected.
  process.on('SIGUSR1', () => running.jobs.setSignalPause(true));
  process.on('SIGUSR2', () => running.jobs.setSignalPause(false));
}

main().catch((e) => {
  process.stderr.write(`hermes-mcp-gateway: failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
