import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { packageRoot } from '../../../shared/package-root.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { pathWithServers, SERVER_BIN_DIR, TS, writeTypeScriptProject } from './fixtures.js';

// Concurrent calls on one file take turns on the document (the real typescript-language-server,
// push diagnostics): a diagnostics call closes and reopens the file and waits for its publishes, so
// without turns another call's didOpen lands twice, a hover meets a closed document, or one
// diagnostics call takes the other's close/open publishes for its verdict. The server is the real
// one behind a pass-through that records every document-protocol violation of the client
// (tests/fixtures/document-protocol-proxy.ts): typescript-language-server itself tolerates a
// duplicate didOpen silently, so the answers alone would not show it.

const PROXY = join(packageRoot(), 'dist', 'tests', 'fixtures', 'document-protocol-proxy.js');

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let files: { math: string; main: string };
let violations: string;

before(async () => {
  const root = realpathSync(dirs.make('hmcp-lsp-concurrent-'));
  files = writeTypeScriptProject(join(root, 'work'));
  violations = join(root, 'violations.txt');
  const servers = join(root, 'servers.json');
  const typescript = loadConfig({}).lsp.servers.find((s) => s.name === 'typescript')!;
  const real = [join(SERVER_BIN_DIR, 'typescript-language-server'), ...typescript.command.slice(1)];
  writeFileSync(servers, JSON.stringify({ servers: [{ ...typescript, command: [process.execPath, PROXY, violations, ...real] }] }));
  gw = await startTestGateway({
    env: { HERMES_MCP_ROOTS: join(root, 'work'), HERMES_MCP_LSP_TRUSTED_ROOTS: join(root, 'work'), HERMES_MCP_LSP_SERVERS: servers, PATH: pathWithServers(), HERMES_MCP_LSP_CALL_TIMEOUT_SECONDS: '20' },
  });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

test('diagnostics and hovers fired together on one open file all answer correctly', async () => {
  // Warm: the server is ready and main.ts is open, so the diagnostics calls below close and reopen it.
  const warm = await viaBridge(client, 'lsp_document_symbols', { path: files.main });
  assert.equal(warm.isError, false, JSON.stringify(warm.data));
  for (let round = 0; round < 2; round++) {
    const calls = [
      ...Array.from({ length: 3 }, () => viaBridge(client, 'lsp_diagnostics', { path: files.main }).then((r) => ({ kind: 'diagnostics' as const, ...r }))),
      ...Array.from({ length: 3 }, () => viaBridge(client, 'lsp_hover', { path: files.main, ...TS.addCall }).then((r) => ({ kind: 'hover' as const, ...r }))),
    ];
    for (const r of await Promise.all(calls)) {
      assert.equal(r.isError, false, `${r.kind}: ${JSON.stringify(r.data)}`);
      if (r.kind === 'diagnostics') {
        const errors = (r.data.diagnostics as Array<{ severity: string; line: number; code?: number }>).filter((d) => d.severity === 'error');
        assert.deepEqual(errors.map((d) => [d.line, d.code]), [[TS.errorLine, 2322]], `round ${round}: ${JSON.stringify(r.data)}`);
      } else {
        assert.match(String(r.data.contents), /add\(a: number, b: number\): number/, `round ${round}: ${JSON.stringify(r.data)}`);
      }
    }
  }
  assert.equal(existsSync(violations) ? readFileSync(violations, 'utf8') : '', '', 'document protocol violations');
});
