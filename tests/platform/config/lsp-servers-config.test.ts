import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';
import { tempDirs } from '../../helpers/temp.js';

// HERMES_MCP_LSP_SERVERS names a JSON file whose entries replace default servers by name or add
// new ones; a file that does not parse or validate stops the gateway (and hermes-mcp-lsp) at start
// with a ConfigError naming the file and the problem, rather than serving with a half-read list.

const dirs = tempDirs();
after(() => dirs.removeAll());

function serversFile(content: unknown): string {
  const file = join(dirs.make('hmcp-lsp-servers-'), 'servers.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

test('defaults without a file: typescript-language-server and pyright-langserver, no trusted root', () => {
  const { lsp } = loadConfig({});
  assert.deepEqual(lsp.servers.map((s) => [s.name, s.command.join(' ')]), [['typescript', 'typescript-language-server --stdio'], ['pyright', 'pyright-langserver --stdio']]);
  assert.deepEqual(lsp.trustedRoots, []);
});

test('file entries replace a default by name and add new servers', () => {
  const file = serversFile({
    servers: [
      { name: 'pyright', command: ['basedpyright-langserver', '--stdio'], extensions: ['.py'], install: 'pip install basedpyright' },
      { name: 'yaml', command: ['yaml-language-server', '--stdio'], extensions: ['.YAML', '.yml'], languageId: { '.yaml': 'yaml', '.yml': 'yaml' }, install: 'npm install -g yaml-language-server' },
    ],
  });
  const { lsp } = loadConfig({ HERMES_MCP_LSP_SERVERS: file, HERMES_MCP_LSP_TRUSTED_ROOTS: '/srv/a:/srv/b' });
  assert.deepEqual(lsp.servers.map((s) => [s.name, s.command[0]]), [['typescript', 'typescript-language-server'], ['pyright', 'basedpyright-langserver'], ['yaml', 'yaml-language-server']]);
  assert.deepEqual(lsp.servers[2]!.extensions, ['.yaml', '.yml'], 'extensions match case-insensitively');
  assert.deepEqual(lsp.trustedRoots, ['/srv/a', '/srv/b']);
});

test('an invalid file is a ConfigError naming the file and the field', () => {
  const missingInstall = serversFile({ servers: [{ name: 'x', command: ['x'], extensions: ['.x'] }] });
  assert.throws(() => loadConfig({ HERMES_MCP_LSP_SERVERS: missingInstall }), (e: unknown) => e instanceof ConfigError && e.message.includes(missingInstall) && /install/.test(e.message));
  const notJson = serversFile('{ servers: ');
  assert.throws(() => loadConfig({ HERMES_MCP_LSP_SERVERS: notJson }), (e: unknown) => e instanceof ConfigError && /cannot read .* as JSON/.test(e.message));
  const badExtension = serversFile({ servers: [{ name: 'x', command: ['x'], extensions: ['x'], install: 'i' }] });
  assert.throws(() => loadConfig({ HERMES_MCP_LSP_SERVERS: badExtension }), (e: unknown) => e instanceof ConfigError && /extensions/.test(e.message));
  const badMarker = serversFile({ servers: [{ name: 'x', command: ['x'], extensions: ['.x'], install: 'i', rootMarkers: ['../up'] }] });
  assert.throws(() => loadConfig({ HERMES_MCP_LSP_SERVERS: badMarker }), (e: unknown) => e instanceof ConfigError && /rootMarkers/.test(e.message));
});

test('a relative trusted root is a ConfigError', () => {
  assert.throws(() => loadConfig({ HERMES_MCP_LSP_TRUSTED_ROOTS: 'work' }), (e: unknown) => e instanceof ConfigError && /HERMES_MCP_LSP_TRUSTED_ROOTS/.test(e.message));
});
