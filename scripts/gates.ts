#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { GATES } from './gates/index.js';
import { GateContext, Skip, type GateResult } from './gates/context.js';

// `npm run gates -- URL`: the local integration gates before a tunnel cutover, run against a live
// gateway (docs/operations.md, Gates). One line per gate — pass, fail, or skipped with the reason (a gate
// whose backend is not configured here is skipped, never passed) — or --json; exit 0 only when
// no gate failed.

const USAGE = `usage: npm run gates -- [URL] [--json] [--token-file FILE] [--browser-url URL]
                       [--lsp-file PATH] [--graph-cwd DIR] [--systemd-unit NAME]

Runs the local integration gates against the gateway at URL (default http://127.0.0.1:3060/mcp):
  1 execute_code smoke (hermes_tools RPC, no shared state, cancellation kills descendants)
  2 native and browser tool set, forbidden tools absent; Hermes' tool server tools
  3 guarded capabilities (cronjob list, delegate_task refusal, session_search)
  4 Honcho profile/context/search and a conclusion created, read back and deleted
  5 initialize + exact six-tool list, search/describe, hidden calls refused; LSP, browser, graph calls
  6 /healthz and /readyz readback, graph readiness
  7 systemd restart and enabled state (only where systemd runs; it restarts the gateway)
  --token-file FILE   a static bearer token (hermes-mcp-auth token create) for a gateway with auth on
  --browser-url URL   the page gate 5 opens (default https://example.com/)
  --lsp-file PATH     the file gate 5's LSP call reads (default: the first .ts/.py under a trusted root)
  --graph-cwd DIR     the project gate 5's graph call inspects (default: the first tsconfig.json's directory)
  --systemd-unit NAME the unit gate 7 restarts (default hermes-mcp-gateway.service)
Exit status: 0 nothing failed, 1 a gate failed, 2 usage error.
`;

function usage(message: string): never {
  process.stderr.write(`gates: ${message}\n${USAGE}`);
  process.exit(2);
}

function parse() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        'token-file': { type: 'string' },
        'browser-url': { type: 'string' },
        'lsp-file': { type: 'string' },
        'graph-cwd': { type: 'string' },
        'systemd-unit': { type: 'string' },
      },
    });
  } catch (e) {
    usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (positionals.length > 1) usage(`one URL expected, got ${positionals.join(' ')}`);
  const raw = positionals[0] ?? 'http://127.0.0.1:3060/mcp';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    usage(`not a URL: ${raw}`);
  }
  if (!url.pathname.endsWith('/mcp')) url.pathname = `${url.pathname.replace(/\/$/, '')}/mcp`;
  let token: string | undefined;
  if (values['token-file']) {
    try {
      token = readFileSync(values['token-file'], 'utf8').trim();
    } catch (e) {
      usage(`cannot read --token-file: ${(e as Error).message}`);
    }
    if (!token) usage('--token-file is empty');
  }
  return {
    json: values.json === true,
    options: {
      mcpUrl: url.toString(),
      ...(token ? { token } : {}),
      ...(values['browser-url'] ? { browserUrl: values['browser-url'] } : {}),
      ...(values['lsp-file'] ? { lspFile: values['lsp-file'] } : {}),
      ...(values['graph-cwd'] ? { graphCwd: values['graph-cwd'] } : {}),
      systemdUnit: values['systemd-unit'] ?? 'hermes-mcp-gateway.service',
    },
  };
}

const GATE_TIMEOUT_MS = 120_000;

async function main(): Promise<void> {
  const { json, options } = parse();
  const ctx = new GateContext(options);
  const results: GateResult[] = [];
  try {
    await ctx.refreshReadiness();
  } catch (e) {
    usage(`no gateway answers at ${ctx.baseUrl}/readyz: ${(e as Error).message}`);
  }
  for (const gate of GATES) {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no verdict within ${GATE_TIMEOUT_MS / 1000} s`)), GATE_TIMEOUT_MS);
      });
      const reason = await Promise.race([gate.run(ctx), timeout]);
      results.push({ id: gate.id, name: gate.name, status: 'pass', reason });
    } catch (e) {
      const status = e instanceof Skip ? 'skipped' : 'fail';
      results.push({ id: gate.id, name: gate.name, status, reason: (e as Error).message });
    } finally {
      clearTimeout(timer);
      await ctx.close();
    }
    if (!json) {
      const r = results[results.length - 1]!;
      process.stdout.write(`${r.status.toUpperCase().padEnd(7)} ${r.id.padEnd(3)} ${r.name}: ${r.reason}\n`);
    }
  }
  const failed = results.filter((r) => r.status === 'fail').length;
  if (json) process.stdout.write(`${JSON.stringify({ url: options.mcpUrl, ok: failed === 0, gates: results }, null, 2)}\n`);
  else process.stdout.write(`${results.filter((r) => r.status === 'pass').length} passed, ${failed} failed, ${results.filter((r) => r.status === 'skipped').length} skipped\n`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  process.stderr.write(`gates: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
