import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_LSP_SERVERS, findProgram, languageIdFor, loadLspServers, projectWorkspace, serverForFile, type LspServerSpec } from '../../../supervisor/platform/settings/lsp-servers.js';
import { tempDirs } from '../../helpers/temp.js';

// Which language server handles a file, where its program is, and which project it serves.

const dirs = tempDirs();
after(() => dirs.removeAll());

function serversFile(content: unknown): string {
  const file = join(dirs.make('lsp-servers-'), 'servers.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

test('without a file: the two defaults', () => {
  assert.deepEqual(loadLspServers(undefined).map((s) => s.name), ['typescript', 'pyright']);
  assert.deepEqual(loadLspServers(undefined), [...DEFAULT_LSP_SERVERS]);
});

test('a file entry replaces the default of its name in place and adds new ones; extensions are lower-cased', () => {
  const file = serversFile({
    servers: [
      { name: 'pyright', command: ['/opt/pyright', '--stdio'], extensions: ['.PY'], install: 'pip install x' },
      { name: 'rust', command: ['rust-analyzer'], extensions: ['.rs'], languageId: { '.RS': 'rust' }, install: 'rustup component add rust-analyzer', rootMarkers: ['Cargo.toml'], initializationOptions: { a: 1 } },
    ],
  });
  const servers = loadLspServers(file);
  assert.deepEqual(servers.map((s) => s.name), ['typescript', 'pyright', 'rust']);
  assert.deepEqual(servers[1], { name: 'pyright', command: ['/opt/pyright', '--stdio'], extensions: ['.py'], languageId: {}, install: 'pip install x', rootMarkers: [] });
  assert.deepEqual(servers[2], { name: 'rust', command: ['rust-analyzer'], extensions: ['.rs'], languageId: { '.rs': 'rust' }, install: 'rustup component add rust-analyzer', rootMarkers: ['Cargo.toml'], initializationOptions: { a: 1 } });
});

test('a broken file is refused naming the variable, the file and the path of the problem', () => {
  const notJson = serversFile('{');
  assert.throws(() => loadLspServers(notJson), (e: Error) => e.message.startsWith(`HERMES_MCP_LSP_SERVERS: cannot read ${notJson} as JSON: `));
  assert.throws(() => loadLspServers('/nonexistent/servers.json'), /^Error: HERMES_MCP_LSP_SERVERS: cannot read \/nonexistent\/servers\.json as JSON: ENOENT/);
  const entry = { name: 'x', command: ['x'], extensions: ['.x'], install: 'i' };
  const cases: Array<[unknown, string]> = [
    [{ servers: [{ ...entry, name: 'Bad Name' }] }, 'servers.0.name: a name is lower-case letters, digits, "-" or "_"'],
    [{ servers: [{ ...entry, extensions: ['x'] }] }, 'servers.0.extensions.0: an extension starts with a dot, e.g. ".ts"'],
    [{ servers: [{ ...entry, rootMarkers: ['a/b'] }] }, 'servers.0.rootMarkers.0: a root marker is a file name, without "/"'],
    [{ servers: [{ ...entry, rootMarkers: ['..'] }] }, 'servers.0.rootMarkers.0: a root marker is a file name'],
  ];
  for (const [content, message] of cases) {
    const file = serversFile(content);
    assert.throws(() => loadLspServers(file), { message: `HERMES_MCP_LSP_SERVERS: ${file}: ${message}` });
  }
  const extra = serversFile({ servers: [{ ...entry, unknown: 1 }] });
  assert.throws(() => loadLspServers(extra), (e: Error) => e.message.startsWith(`HERMES_MCP_LSP_SERVERS: ${extra}: servers.0.unknown: `));
  const empty = serversFile({ servers: [{ ...entry, command: [] }] });
  assert.throws(() => loadLspServers(empty), (e: Error) => e.message.startsWith(`HERMES_MCP_LSP_SERVERS: ${empty}: servers.0.command: `));
});

test('serverForFile: by extension, case-insensitive, the last claimant wins; languageIdFor falls back to the name', () => {
  const servers = loadLspServers(undefined);
  assert.equal(serverForFile(servers, '/p/a.TSX')?.name, 'typescript');
  assert.equal(serverForFile(servers, '/p/a.pyi')?.name, 'pyright');
  assert.equal(serverForFile(servers, '/p/Makefile'), undefined);
  assert.equal(serverForFile(servers, '/p/a.rs'), undefined);
  const deno: LspServerSpec = { name: 'deno', command: ['deno', 'lsp'], extensions: ['.ts'], languageId: {}, install: 'i', rootMarkers: [] };
  assert.equal(serverForFile([...servers, deno], '/p/a.ts')?.name, 'deno');
  assert.equal(languageIdFor(servers[0]!, '/p/a.TSX'), 'typescriptreact');
  assert.equal(languageIdFor(servers[0]!, '/p/a.cjs'), 'javascript');
  assert.equal(languageIdFor(deno, '/p/a.ts'), 'deno');
});

test('projectWorkspace: nearest marker, else nearest .git, else the bound; never above the bound', () => {
  const root = realpathSync(dirs.make('lsp-ws-'));
  const bound = join(root, 'bound');
  mkdirSync(join(bound, 'repo', 'pkg', 'src'), { recursive: true });
  mkdirSync(join(bound, 'repo', '.git'));
  writeFileSync(join(root, 'package.json'), '{}'); // above the bound: ignored
  const ts = DEFAULT_LSP_SERVERS[0]!;
  const file = join(bound, 'repo', 'pkg', 'src', 'a.ts');
  assert.equal(projectWorkspace(ts, file, bound), join(bound, 'repo'));
  writeFileSync(join(bound, 'repo', 'pkg', 'tsconfig.json'), '{}');
  assert.equal(projectWorkspace(ts, file, bound), join(bound, 'repo', 'pkg'));
  const py = DEFAULT_LSP_SERVERS[1]!;
  mkdirSync(join(bound, 'loose'));
  assert.equal(projectWorkspace(py, join(bound, 'loose', 'x.py'), bound), bound);
  writeFileSync(join(bound, 'pyproject.toml'), '');
  assert.equal(projectWorkspace(py, join(bound, 'repo', 'pkg', 'src', 'x.py'), bound), bound);
});

test('findProgram: absolute executables, bare names on absolute PATH entries only', () => {
  const dir = dirs.make('lsp-bin-');
  const program = join(dir, 'my-lsp');
  writeFileSync(program, '#!/bin/sh\n');
  chmodSync(program, 0o755);
  writeFileSync(join(dir, 'not-exec'), '');
  assert.equal(findProgram(program, ''), program);
  assert.equal(findProgram(join(dir, 'not-exec'), dir), undefined);
  assert.equal(findProgram(dir, ''), undefined);
  assert.equal(findProgram('my-lsp', `relative:${dir}`), program);
  assert.equal(findProgram('my-lsp', `:relative`), undefined);
  assert.equal(findProgram('not-exec', dir), undefined);
  assert.equal(findProgram('./my-lsp', dir), undefined);
  assert.equal(findProgram('bin/my-lsp', dir), undefined);
});
