#!/usr/bin/env node
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { handleBinArguments } from './arguments.js';
import { becomeSubreaper } from '../shared/subreaper.js';
import { ConfigError, loadConfig } from '../supervisor/platform/config.js';
import { createWorkerRuntime } from '../supervisor/platform/spawning/worker-runtime.js';
import { createLogger } from '../supervisor/platform/telemetry.js';
import { lspServerFactory, lspService } from '../supervisor/tools/lsp/index.js';

// `hermes-mcp-lsp`: the read-only LSP tools as a stdio MCP server, for Hermes Agent's own MCP
// client (an `mcp_servers` entry in Hermes' config.yaml). It is not a client of the HTTP gateway:
// it loads the same configuration (environment only), runs the same tools in its own LSP worker
// under the same process isolation, and shares the gateway's validation, redaction and output
// bounds. stdout is the MCP stream, so everything else (logs) goes to stderr. It exits when its
// client closes stdin (or on SIGTERM/SIGINT), and its worker and language servers go with it.

const USAGE = `usage: hermes-mcp-lsp [--help | --version]

A stdio MCP server with six read-only language-server tools: lsp_diagnostics, lsp_hover,
lsp_definition, lsp_references, lsp_document_symbols, lsp_status. Start it from an MCP client
(Hermes Agent: an mcp_servers entry in config.yaml); it speaks MCP on stdin/stdout and logs to stderr.
From a checkout (not on PATH) the command is the built file: /path/to/checkout/dist/bin/lsp.js.

Configuration is read from the environment only (pass it in the client's env block):
  HERMES_MCP_ROOTS                 colon-separated project roots the tools may read (default ~/work)
  HERMES_MCP_LSP_TRUSTED_ROOTS     colon-separated roots where a language server may start (default none)
  HERMES_MCP_LSP_SERVERS           a JSON file adding or replacing language servers (optional)
  PATH                             where language servers are found (never installed)
  HERMES_MCP_<LIMIT>               e.g. HERMES_MCP_LSP_CALL_TIMEOUT_SECONDS, HERMES_MCP_MAX_OUTPUT_CHARS
`;

function main(): void {
  if (!handleBinArguments('hermes-mcp-lsp', USAGE, process.argv.slice(2))) return;
  let config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`hermes-mcp-lsp: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  // Synchronous stderr: stdout is the protocol, and a log line must not wait behind a crash.
  const log = createLogger(config.logLevel, process.stderr);
  if (!becomeSubreaper()) log.warn({ event: 'subreaper_unavailable' }, 'could not become a child subreaper (native addon missing?)');
  const runtime = createWorkerRuntime(config, config.inheritedEnvironment, (entry, reason) => log.warn({ event: 'worker_failed', worker: entry, reason }, 'worker failed'));
  if (runtime.isolation.degraded) log.warn({ event: 'isolation_degraded', mode: runtime.isolation.mode, reason: runtime.isolation.reason }, 'process isolation degraded');
  const service = lspService(config, runtime);
  const handle = serveStdio(lspServerFactory(service.tools, config.limits, log), { onerror: (error) => log.warn({ event: 'mcp_error', reason: error.message }) });
  log.info({ event: 'listening', transport: 'stdio', trusted_roots: config.lsp.trustedRoots }, 'hermes-mcp-lsp serving on stdio');

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'shutdown', reason: why });
    const force = setTimeout(() => process.exit(1), config.limits.shutdownGraceSeconds * 1000);
    force.unref();
    void Promise.allSettled([service.close(), handle.close()]).then(() => process.exit(0));
  };
  // The client closing its end of stdin is the end of the session (the MCP stdio binding).
  process.stdin.once('end', () => stop('stdin closed'));
  process.stdin.once('close', () => stop('stdin closed'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main();
