import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';
import { descendantsOf } from '../../../shared/proc.js';
import { cmdline } from '../../helpers/procfs.js';
import { alive, languageServersUnder, pathWithServers, TS, writeTypeScriptProject } from './fixtures.js';

// The LSP tools as deferred gateway tools (tool_call), against the real typescript-language-server
// with TypeScript 5.9 on a two-file project: one gateway and one warm server for the whole file.
// The last test stops the gateway and checks that the language server processes went with it.

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let files: { math: string; main: string };

before(async () => {
  const root = realpathSync(dirs.make('hmcp-lsp-ts-'));
  files = writeTypeScriptProject(root);
  gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_LSP_TRUSTED_ROOTS: root, PATH: pathWithServers() } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

test('lsp_document_symbols: the declarations of math.ts, nested, 1-based', async () => {
  const { data, isError } = await viaBridge(client, 'lsp_document_symbols', { path: files.math });
  assert.equal(isError, false, JSON.stringify(data));
  const symbols = data.symbols as Array<{ name: string; kind: string; line: number; character: number; children?: Array<{ name: string; kind: string }> }>;
  const add = symbols.find((s) => s.name === 'add');
  assert.deepEqual([add?.kind, add?.line, add?.character], ['Function', TS.addDeclaration.line, TS.addDeclaration.character]);
  const counter = symbols.find((s) => s.name === 'Counter');
  assert.equal(counter?.kind, 'Class');
  assert.ok(counter?.children?.some((c) => c.name === 'increment' && c.kind === 'Method'), JSON.stringify(counter));
  assert.equal(data.hierarchical, true);
});

test('lsp_hover: the signature of the imported function at a 1-based position', async () => {
  const { data, isError } = await viaBridge(client, 'lsp_hover', { path: files.main, ...TS.addCall });
  assert.equal(isError, false, JSON.stringify(data));
  assert.equal(data.found, true);
  assert.match(data.contents as string, /add\(a: number, b: number\): number/);
});

test('lsp_definition: from the call in main.ts to the declaration in math.ts', async () => {
  const { data, isError } = await viaBridge(client, 'lsp_definition', { path: files.main, ...TS.addCall });
  assert.equal(isError, false, JSON.stringify(data));
  assert.deepEqual(data.locations, [{ path: files.math, line: 1, character: 17, end_line: 1, end_character: 20 }]);
});

test('lsp_references: every use of add across both files, with and without the declaration', async () => {
  const all = await viaBridge(client, 'lsp_references', { path: files.math, ...TS.addDeclaration });
  assert.equal(all.isError, false, JSON.stringify(all.data));
  const at = (l: { path: string; line: number; character: number }) => `${l.path === files.math ? 'math' : 'main'}:${l.line}:${l.character}`;
  const found = (all.data.locations as Array<{ path: string; line: number; character: number }>).map(at).sort();
  assert.deepEqual(found, ['main:1:10', 'main:2:23', 'main:3:23', 'math:1:17', 'math:8:18']);
  const uses = await viaBridge(client, 'lsp_references', { path: files.math, ...TS.addDeclaration, include_declaration: false });
  assert.ok(!(uses.data.locations as Array<{ path: string; line: number; character: number }>).map(at).includes('math:1:17'), JSON.stringify(uses.data));
});

test('lsp_diagnostics: the deliberate type error is reported (push model), on its line', async () => {
  const { data, isError } = await viaBridge(client, 'lsp_diagnostics', { path: files.main });
  assert.equal(isError, false, JSON.stringify(data));
  assert.equal(data.model, 'push');
  const errors = (data.diagnostics as Array<{ severity: string; line: number; code?: number; message: string }>).filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => [d.line, d.code]), [[TS.errorLine, 2322]], JSON.stringify(data));
  assert.match(errors[0]!.message, /not assignable to type 'string'/);
});

test('manual installation only: tsserver runs without automatic type acquisition, so no typings installer (npm install @types/...) runs', () => {
  const tree = descendantsOf(process.pid).map((pid) => ({ pid, cmd: cmdline(pid) }));
  const tsservers = tree.filter((p) => /tsserver\.js/.test(p.cmd));
  assert.ok(tsservers.length > 0, 'the server from the calls above is still running');
  for (const p of tsservers) assert.match(p.cmd, /--disableAutomaticTypingAcquisition/);
  assert.deepEqual(tree.filter((p) => /typingsInstaller|\bnpm\b/.test(p.cmd)), []);
});

test('lsp_status lists the running server; after the gateway stops, no language server process is left', async () => {
  const { data } = await viaBridge(client, 'lsp_status');
  const ts = (data.servers as Array<{ name: string; installed: boolean; running: Array<{ root: string; pid: number; state: string }> }>).find((s) => s.name === 'typescript')!;
  assert.equal(ts.installed, true);
  assert.equal(ts.running.length, 1, JSON.stringify(ts));
  assert.equal(ts.running[0]!.state, 'ready');
  const serverPid = ts.running[0]!.pid;
  assert.ok(alive(serverPid), 'lsp_status reports the pid this host sees');
  const servers = languageServersUnder(process.pid);
  assert.ok(servers.includes(serverPid), `the reported pid ${serverPid} is one of the language server processes ${servers.join(',')}`);
  await client.close();
  await gw.close();
  await waitFor(() => servers.every((p) => !alive(p)), 5000, `language server pids ${servers.join(',')} to be gone`);
  // A stop the gateway asked for is not a crash: nothing logs the LSP worker as failed.
  assert.deepEqual(gw.logs.filter((l) => l.event === 'worker_failed'), []);
});
