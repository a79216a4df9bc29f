import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { projectWorkspace, type LspServerSpec } from '../../../supervisor/platform/settings/lsp-servers.js';
import { connect, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { pathWithServers, writeTypeScriptProject } from './fixtures.js';

// A language server runs per project, not per whole root: its workspace is the nearest directory
// above the file holding one of the server's root markers (else `.git`), never above the trusted,
// allowed root (which is the workspace when there is no marker). Two projects under one trusted
// root get two servers; files of one project share one.

const dirs = tempDirs();
after(() => dirs.removeAll());

function tree(files: string[]): string {
  const root = realpathSync(dirs.make('hmcp-lsp-markers-'));
  for (const f of files) {
    const path = join(root, f);
    if (f.endsWith('/')) mkdirSync(path, { recursive: true });
    else {
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, '');
    }
  }
  return root;
}

const typescript = (): LspServerSpec => loadConfig({}).lsp.servers.find((s) => s.name === 'typescript')!;
const pyright = (): LspServerSpec => loadConfig({}).lsp.servers.find((s) => s.name === 'pyright')!;

test('the nearest marker of the server wins; a .git only when no marker of the language is found; never above the root', () => {
  const root = tree(['package.json', 'app/tsconfig.json', 'app/src/deep/a.ts', 'repo/.git/', 'repo/lib/b.ts', 'repo/pkg/package.json', 'repo/pkg/c.ts', 'loose/d.ts', 'py/pyproject.toml', 'py/src/e.py']);
  assert.equal(projectWorkspace(typescript(), join(root, 'app', 'src', 'deep', 'a.ts'), root), join(root, 'app'));
  assert.equal(projectWorkspace(typescript(), join(root, 'repo', 'pkg', 'c.ts'), root), join(root, 'repo', 'pkg'));
  // repo/ has only a .git, but the root's package.json is a TypeScript marker above it: the language's marker comes first.
  assert.equal(projectWorkspace(typescript(), join(root, 'repo', 'lib', 'b.ts'), root), root);
  assert.equal(projectWorkspace(pyright(), join(root, 'repo', 'lib', 'b.py'), root), join(root, 'repo'), 'no Python marker: the .git');
  assert.equal(projectWorkspace(pyright(), join(root, 'py', 'src', 'e.py'), root), join(root, 'py'));
  assert.equal(projectWorkspace(pyright(), join(root, 'loose', 'd.py'), root), root, 'no marker at all: the root');
  // The bound is the root even when a marker sits above it.
  assert.equal(projectWorkspace(typescript(), join(root, 'loose', 'd.ts'), join(root, 'loose')), join(root, 'loose'));
});

test('HERMES_MCP_LSP_SERVERS entries set their own rootMarkers', () => {
  const root = tree(['Cargo.toml', 'crate/Cargo.toml', 'crate/src/main.rs']);
  const file = join(dirs.make('hmcp-lsp-servers-'), 'servers.json');
  writeFileSync(file, JSON.stringify({ servers: [{ name: 'rust', command: ['rust-analyzer'], extensions: ['.rs'], install: 'rustup component add rust-analyzer', rootMarkers: ['Cargo.toml'] }] }));
  const rust = loadConfig({ HERMES_MCP_LSP_SERVERS: file }).lsp.servers.find((s) => s.name === 'rust')!;
  assert.deepEqual(rust.rootMarkers, ['Cargo.toml']);
  assert.equal(projectWorkspace(rust, join(root, 'crate', 'src', 'main.rs'), root), join(root, 'crate'));
});

test('through the gateway: two projects under one trusted root run two servers, files of one project share one', async () => {
  const root = realpathSync(dirs.make('hmcp-lsp-projects-'));
  const one = writeTypeScriptProject(join(root, 'one'));
  const two = writeTypeScriptProject(join(root, 'two'));
  const gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_LSP_TRUSTED_ROOTS: root, PATH: pathWithServers() } });
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    for (const path of [one.main, one.math, two.main]) {
      const { data, isError } = await viaBridge(client, 'lsp_document_symbols', { path });
      assert.equal(isError, false, JSON.stringify(data));
    }
    const { data } = await viaBridge(client, 'lsp_status');
    const ts = (data.servers as Array<{ name: string; running: Array<{ root: string }> }>).find((s) => s.name === 'typescript')!;
    assert.deepEqual(ts.running.map((r) => r.root).sort(), [join(root, 'one', 'ts'), join(root, 'two', 'ts')]);
  } finally {
    await client.close();
    await gw.close();
  }
});
