import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { defaultLimits } from '../../../shared/limits.js';
import { packageRoot, packageVersion } from '../../../shared/package-root.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';
import { alive, languageServersUnder, pathWithServers, PY, TS, writePythonProject, writeTypeScriptProject } from './fixtures.js';

// hermes-mcp-lsp driven the way Hermes Agent drives an `mcp_servers` entry: the MCP SDK's
// StdioClientTransport spawns `command` with `args` and exactly the `env` the entry gives (plus the
// SDK's safe defaults), and speaks MCP over the pipes. Real servers: typescript-language-server
// and pyright. Closing the client closes the bin's stdin: the bin exits and its servers with it.

const BIN = join(packageRoot(), 'dist', 'bin', 'lsp.js');
const dirs = tempDirs();
let client: Client;
let transport: StdioClientTransport;
let ts: { math: string; main: string };
let py: { lib: string; main: string };
let big: string;

type Result = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
const callTool = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;

before(async () => {
  const root = realpathSync(dirs.make('hmcp-lsp-stdio-'));
  ts = writeTypeScriptProject(root);
  py = writePythonProject(root);
  // A file whose symbol list is far over the default output cap (maxOutputChars).
  big = join(root, 'ts', 'src', 'big.ts');
  writeFileSync(big, Array.from({ length: 3000 }, (_, i) => `export function generatedFunctionNumber${i}(): number { return ${i}; }\n`).join(''));
  mkdirSync(join(root, 'state'));
  transport = new StdioClientTransport({
    command: BIN,
    args: [],
    env: { PATH: pathWithServers(), HERMES_MCP_ROOTS: root, HERMES_MCP_LSP_TRUSTED_ROOTS: root, HERMES_MCP_STATE_DIR: join(root, 'state') },
    stderr: 'ignore',
  });
  client = new Client({ name: 'hermes', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  dirs.removeAll();
});

test('serverInfo names the bin and the package version', () => {
  const info = client.getServerVersion();
  assert.deepEqual([info?.name, info?.version], ['hermes-mcp-lsp', packageVersion()]);
});

test('tools/list is exactly the six read-only LSP tools', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['lsp_definition', 'lsp_diagnostics', 'lsp_document_symbols', 'lsp_hover', 'lsp_references', 'lsp_status']);
  assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true && t.annotations?.destructiveHint === false));
});

test('TypeScript, first call on a cold server: definition and hover follow the import (semantic answers, not syntax-only ones)', async () => {
  const definition = await callTool('lsp_definition', { path: ts.main, ...TS.addCall });
  assert.deepEqual(definition.structuredContent!.locations, [{ path: ts.math, line: 1, character: 17, end_line: 1, end_character: 20 }], JSON.stringify(definition));
  const hover = await callTool('lsp_hover', { path: ts.main, ...TS.addCall });
  assert.match(hover.structuredContent!.contents as string, /add\(a: number, b: number\): number/);
});

test('TypeScript: the deliberate type error', async () => {
  const diagnostics = await callTool('lsp_diagnostics', { path: ts.main });
  assert.equal(diagnostics.isError, undefined, JSON.stringify(diagnostics));
  const errors = (diagnostics.structuredContent!.diagnostics as Array<{ severity: string; line: number }>).filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => d.line), [TS.errorLine]);
  // Hermes' MCP client hands the model text and structuredContent both: a success is the structured answer alone.
  assert.deepEqual(diagnostics.content, [], 'no text copy of the structured result');
});

test('Python: the deliberate type error, symbols and references', async () => {
  const diagnostics = await callTool('lsp_diagnostics', { path: py.main });
  const errors = (diagnostics.structuredContent!.diagnostics as Array<{ severity: string; line: number }>).filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => d.line), [PY.errorLine], JSON.stringify(diagnostics));
  const symbols = await callTool('lsp_document_symbols', { path: py.lib });
  assert.ok((symbols.structuredContent!.symbols as Array<{ name: string }>).some((s) => s.name === 'Greeter'));
  const references = await callTool('lsp_references', { path: py.lib, ...PY.greetDeclaration });
  assert.ok((references.structuredContent!.count as number) >= 4, JSON.stringify(references.structuredContent));
});

test('an oversized result is a valid JSON truncation receipt, never cut JSON', async () => {
  const result = await callTool('lsp_document_symbols', { path: big });
  assert.equal(result.isError, undefined);
  const receipt = result.structuredContent!;
  assert.equal(receipt.truncated, true, JSON.stringify(receipt).slice(0, 300));
  assert.ok((receipt.original_chars as number) > 65536);
  assert.match(receipt.preview as string, /generatedFunctionNumber0/);
  assert.deepEqual(result.content, []);
  // Capped at lspStdioMaxOutputChars (below maxOutputChars): under Hermes' 50,000-character MCP result budget, and filling the cap.
  const chars = JSON.stringify(receipt).length;
  assert.ok(chars <= defaultLimits().lspStdioMaxOutputChars && chars > defaultLimits().lspStdioMaxOutputChars - 100, `${chars} characters`);
});

test('arguments are validated by the same schema: a 0 line is refused before any server is asked', async () => {
  const result = await callTool('lsp_hover', { path: ts.main, line: 0, character: 1 });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent!.error, 'INVALID_ARGUMENTS');
  // An error keeps its JSON text block: Hermes' client reads only the text of an error.
  assert.deepEqual(JSON.parse(result.content[0]!.text!), result.structuredContent);
});

test('closing the client ends the bin, and its language servers with it', async () => {
  const binPid = transport.pid!;
  const servers = languageServersUnder(binPid);
  assert.ok(servers.length >= 2, `both servers run under the bin (${servers.join(',')})`);
  await client.close();
  await waitFor(() => !alive(binPid) && servers.every((p) => !alive(p)), 10_000, `the bin ${binPid} and servers ${servers.join(',')} to be gone`);
});
