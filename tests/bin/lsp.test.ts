import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// hermes-mcp-lsp's arguments, on the built bin as a child process: only argument lists that end it
// before it serves on stdio (help, version, usage errors).

const BIN = fileURLToPath(new URL('../../bin/lsp.js', import.meta.url));
const temp = tempDirs();
after(() => temp.removeAll());

function lsp(args: string[]) {
  const home = temp.make('lsp-bin-');
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, HERMES_HOME: home }, input: '', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--help prints the usage naming the six tools and the settings, and exits 0', () => {
  const r = lsp(['--help']);
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^usage: hermes-mcp-lsp \[--help \| --version\]\n/);
  for (const tool of ['lsp_diagnostics', 'lsp_hover', 'lsp_definition', 'lsp_references', 'lsp_document_symbols', 'lsp_status']) assert.ok(r.stdout.includes(tool), tool);
  assert.match(r.stdout, /HERMES_MCP_LSP_TRUSTED_ROOTS/);
});

test('--version prints the package version', () => {
  assert.deepEqual(lsp(['--version']), { status: 0, stdout: `hermes-mcp-lsp ${packageVersion()}\n`, stderr: '' });
});

test('any other argument, --log-format included, exits 2 with the usage and nothing on stdout', () => {
  for (const [args, named] of [[['--log-format', 'json'], '--log-format'], [['--help', 'x'], 'x']] as const) {
    const r = lsp([...args]);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stdout, '', 'stdout is the MCP stream');
    assert.match(r.stderr, new RegExp(`^hermes-mcp-lsp: unexpected argument "${named}"; settings come from the environment\\nusage: hermes-mcp-lsp `));
  }
});
