import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { packageRoot } from '../../../shared/package-root.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// A wedged language server (tests/fixtures/silent-language-server.ts, configured through a
// HERMES_MCP_LSP_SERVERS file) never answers: diagnostics end in LSP_TIMEOUT within the call budget,
// /readyz answers at once while such a call is in flight, and when the LSP worker dies under a
// call, that call gets LSP_SERVER_FAILED, /readyz reports `lsp` degraded (not ready) with the
// failure until the next call starts a new worker.

const SILENT = join(packageRoot(), 'dist', 'tests', 'fixtures', 'silent-language-server.js');
const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let file: string;

before(async () => {
  const root = realpathSync(dirs.make('hmcp-lsp-silent-'));
  file = join(root, 'stuck.silent');
  writeFileSync(file, 'anything\n');
  const servers = join(root, 'servers.json');
  writeFileSync(servers, JSON.stringify({ servers: [{ name: 'silent', command: [process.execPath, SILENT], extensions: ['.silent'], install: 'nothing to install (test fixture)' }] }));
  gw = await startTestGateway({
    env: { HERMES_MCP_ROOTS: root, HERMES_MCP_LSP_TRUSTED_ROOTS: root, HERMES_MCP_LSP_SERVERS: servers, HERMES_MCP_LSP_CALL_TIMEOUT_SECONDS: '2' },
  });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

async function lspReadiness(): Promise<{ ready: boolean; status: string; reason?: string }> {
  const body = (await (await fetch(`${gw.url}/readyz`)).json()) as { components: Record<string, { ready: boolean; status: string; reason?: string }> };
  return body.components.lsp!;
}

test('a server that never answers: LSP_TIMEOUT within the budget, and /readyz answers meanwhile', async () => {
  const started = performance.now();
  const pending = viaBridge(client, 'lsp_diagnostics', { path: file });
  await waitFor(async () => ((await viaBridge(client, 'lsp_status')).data.servers as Array<{ name: string; running: unknown[] }>).find((s) => s.name === 'silent')!.running.length === 1, 5000, 'the silent server to start');
  const probeStart = performance.now();
  const readyz = (await (await fetch(`${gw.url}/readyz`)).json()) as { components: Record<string, { ready: boolean; status: string }> };
  assert.ok(performance.now() - probeStart < 1000, 'the lsp probe does not wait for the call in flight');
  assert.equal(readyz.components.lsp?.ready, true, JSON.stringify(readyz.components.lsp));
  const { data, isError } = await pending;
  assert.equal(isError, true, JSON.stringify(data));
  assert.equal(data.error, 'LSP_TIMEOUT');
  assert.ok(performance.now() - started < 5000, `answered within the 2 s budget and its margin (${performance.now() - started} ms)`);
});

test('the LSP worker dying under a call: LSP_SERVER_FAILED for that call, a new worker for the next', async () => {
  const before = (await viaBridge(client, 'lsp_status')).data.worker as { pid: number; starts: number };
  assert.ok(before.pid, JSON.stringify(before));
  const pending = viaBridge(client, 'lsp_hover', { path: file, line: 1, character: 1 });
  await new Promise((r) => setTimeout(r, 300));
  process.kill(before.pid, 'SIGKILL');
  const { data } = await pending;
  assert.equal(data.error, 'LSP_SERVER_FAILED', JSON.stringify(data));
  const failing = await lspReadiness();
  assert.deepEqual([failing.ready, failing.status], [false, 'degraded'], JSON.stringify(failing));
  assert.match(failing.reason!, /LSP worker is failing: worker exited unexpectedly \(signal SIGKILL\)/);
  const next = await viaBridge(client, 'lsp_document_symbols', { path: file });
  assert.equal(next.data.error, 'LSP_TIMEOUT', 'the next call reached a (new) server');
  const recovered = await lspReadiness();
  assert.equal(recovered.ready, true, JSON.stringify(recovered));
  assert.doesNotMatch(recovered.reason ?? '', /worker/, 'what remains is only that the default servers are not installed here');
  const after = (await viaBridge(client, 'lsp_status')).data.worker as { pid: number; starts: number };
  assert.equal(after.starts, before.starts + 1);
  assert.notEqual(after.pid, before.pid);
});
