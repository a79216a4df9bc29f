import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { languageServersUnder, pathWithoutServers, writeTypeScriptProject } from './fixtures.js';

// Every refusal of the LSP tools has its stable code and is decided before anything starts: no
// LSP worker, no language server, no install. The gateway here has one trusted root and one
// untrusted root, and a PATH without the language servers.

const dirs = tempDirs();
let gw: TestGateway;
let client: Client;
let trusted: string;
let untrusted: string;
let outside: string;

before(async () => {
  trusted = realpathSync(dirs.make('hmcp-lsp-trusted-'));
  untrusted = realpathSync(dirs.make('hmcp-lsp-untrusted-'));
  outside = realpathSync(dirs.make('hmcp-lsp-outside-'));
  writeTypeScriptProject(trusted);
  writeTypeScriptProject(untrusted);
  writeFileSync(join(outside, 'secret.ts'), 'export const secret = 1;\n');
  symlinkSync(join(outside, 'secret.ts'), join(trusted, 'ts', 'src', 'link.ts'));
  mkdirSync(join(trusted, 'notes'));
  writeFileSync(join(trusted, 'notes', 'readme.txt'), 'plain text\n');
  gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: `${trusted}:${untrusted}`, HERMES_MCP_LSP_TRUSTED_ROOTS: trusted, PATH: pathWithoutServers() } });
  client = await connect(gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await gw?.close();
  dirs.removeAll();
});

async function refused(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { data, isError } = await viaBridge(client, name, args);
  assert.equal(isError, true, JSON.stringify(data));
  return data;
}

test('paths that leave the roots are PATH_OUTSIDE_ROOTS: "..", a symlink out, a relative path', async () => {
  const dotdot = join(trusted, '..', outside.split('/').pop()!, 'secret.ts');
  assert.equal((await refused('lsp_diagnostics', { path: dotdot })).error, 'PATH_OUTSIDE_ROOTS');
  assert.equal((await refused('lsp_hover', { path: join(trusted, 'ts', 'src', 'link.ts'), line: 1, character: 14 })).error, 'PATH_OUTSIDE_ROOTS');
  assert.equal((await refused('lsp_document_symbols', { path: 'ts/src/main.ts' })).error, 'PATH_OUTSIDE_ROOTS');
});

test('a missing file inside the roots is FILE_NOT_FOUND; a missing one outside stays PATH_OUTSIDE_ROOTS', async () => {
  assert.equal((await refused('lsp_diagnostics', { path: join(trusted, 'ts', 'src', 'missing.ts') })).error, 'FILE_NOT_FOUND');
  assert.equal((await refused('lsp_diagnostics', { path: join(outside, 'missing.ts') })).error, 'PATH_OUTSIDE_ROOTS');
});

test('a file in a root that is not trusted is LSP_WORKSPACE_UNTRUSTED, naming the variable', async () => {
  const data = await refused('lsp_document_symbols', { path: join(untrusted, 'ts', 'src', 'main.ts') });
  assert.equal(data.error, 'LSP_WORKSPACE_UNTRUSTED');
  assert.equal(data.variable, 'HERMES_MCP_LSP_TRUSTED_ROOTS');
  assert.match(data.message as string, /HERMES_MCP_LSP_TRUSTED_ROOTS/);
});

test('a server missing from PATH is LSP_SERVER_NOT_INSTALLED with the exact install command', async () => {
  const data = await refused('lsp_references', { path: join(trusted, 'ts', 'src', 'math.ts'), line: 1, character: 17 });
  assert.equal(data.error, 'LSP_SERVER_NOT_INSTALLED');
  assert.equal(data.install, 'npm install -g typescript-language-server@5 typescript@5');
  assert.match(data.message as string, /npm install -g typescript-language-server@5 typescript@5`/);
});

test('a file no configured server handles is LSP_NO_SERVER_FOR_FILE', async () => {
  assert.equal((await refused('lsp_diagnostics', { path: join(trusted, 'notes', 'readme.txt') })).error, 'LSP_NO_SERVER_FOR_FILE');
});

test('none of that started anything: lsp_status shows both servers not installed, no worker, nothing running', async () => {
  const { data } = await viaBridge(client, 'lsp_status');
  const servers = data.servers as Array<{ name: string; installed: boolean; install?: string; running: unknown[] }>;
  assert.deepEqual(servers.map((s) => [s.name, s.installed, s.running.length]), [['typescript', false, 0], ['pyright', false, 0]]);
  assert.equal(servers[1]!.install, 'npm install -g pyright');
  assert.deepEqual(data.worker, { running: false, pid: null, starts: 0 });
  assert.deepEqual(languageServersUnder(process.pid), []);
});
