import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { pathWithServers, PY, writePythonProject } from './fixtures.js';

// The LSP tools through tool_call against the real pyright on a two-file project. pyright pulls:
// the client declares dynamic registration of textDocument/diagnostic, pyright registers it and
// stops pushing, so a diagnostics call that only waited for a push would time out.

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let files: { lib: string; main: string };

before(async () => {
  const root = realpathSync(dirs.make('hmcp-lsp-py-'));
  files = writePythonProject(root);
  gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_LSP_TRUSTED_ROOTS: root, PATH: pathWithServers() } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

test('lsp_diagnostics: the deliberate type error is reported by a pull, and follows the file on disk', async () => {
  const { data, isError } = await viaBridge(client, 'lsp_diagnostics', { path: files.main });
  assert.equal(isError, false, JSON.stringify(data));
  assert.equal(data.model, 'pull');
  const errors = (data.diagnostics as Array<{ severity: string; line: number; message: string }>).filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => d.line), [PY.errorLine], JSON.stringify(data));
  assert.match(errors[0]!.message, /"str" is not assignable to declared type "int"/);
  // Fixed on disk: the next call reads the file afresh and the error is gone.
  writeFileSync(files.main, 'from lib import Greeter, greet\n\nmessage: str = greet("ada")\ncount: str = greet("bob")\ng = Greeter("hi ")\n');
  const fixed = await viaBridge(client, 'lsp_diagnostics', { path: files.main });
  assert.deepEqual((fixed.data.diagnostics as Array<{ severity: string }>).filter((d) => d.severity === 'error'), [], JSON.stringify(fixed.data));
});

test('lsp_document_symbols: the function and the class with its methods', async () => {
  const { data, isError } = await viaBridge(client, 'lsp_document_symbols', { path: files.lib });
  assert.equal(isError, false, JSON.stringify(data));
  const symbols = data.symbols as Array<{ name: string; kind: string; line: number; character: number; children?: Array<{ name: string }> }>;
  const greet = symbols.find((s) => s.name === 'greet');
  assert.deepEqual([greet?.kind, greet?.line, greet?.character], ['Function', PY.greetDeclaration.line, PY.greetDeclaration.character]);
  const greeter = symbols.find((s) => s.name === 'Greeter');
  assert.equal(greeter?.kind, 'Class');
  assert.ok(greeter?.children?.some((c) => c.name === 'say'), JSON.stringify(greeter));
});

test('lsp_hover, lsp_definition and lsp_references on greet', async () => {
  const hover = await viaBridge(client, 'lsp_hover', { path: files.main, ...PY.greetCall });
  assert.equal(hover.isError, false, JSON.stringify(hover.data));
  assert.match(hover.data.contents as string, /def greet\(name: str\) -> str/);

  const definition = await viaBridge(client, 'lsp_definition', { path: files.main, ...PY.greetCall });
  assert.deepEqual(definition.data.locations, [{ path: files.lib, line: 1, character: 5, end_line: 1, end_character: 10 }]);

  const references = await viaBridge(client, 'lsp_references', { path: files.lib, ...PY.greetDeclaration });
  const at = (l: { path: string; line: number }) => `${l.path === files.lib ? 'lib' : 'main'}:${l.line}`;
  const found = (references.data.locations as Array<{ path: string; line: number }>).map(at).sort();
  for (const expected of ['lib:1', 'lib:10', 'main:1', 'main:3', 'main:4']) assert.ok(found.includes(expected), `${expected} in ${found.join(' ')}`);
});
