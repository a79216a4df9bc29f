import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../../shared/package-root.js';

// hermes-mcp-lsp takes no arguments but --help and --version (settings come from the environment),
// like hermes-mcp-gateway; anything else is a usage error, not a server started anyway.

const BIN = join(packageRoot(), 'dist', 'bin', 'lsp.js');
const run = (...args: string[]) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 10_000, input: '' });

test('--help prints usage naming the six tools and the variables; --version the package version', () => {
  const help = run('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /usage: hermes-mcp-lsp/);
  assert.match(help.stdout, /lsp_document_symbols/);
  assert.match(help.stdout, /HERMES_MCP_LSP_TRUSTED_ROOTS/);
  const version = run('--version');
  assert.equal(version.status, 0);
  assert.match(version.stdout, /^hermes-mcp-lsp \d+\.\d+\.\d+\n$/);
});

test('an unknown argument is a usage error (exit 2)', () => {
  const r = run('--stdio');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unexpected argument "--stdio"/);
});

test('an invalid configuration stops it at start with the reason on stderr (exit 2)', () => {
  const r = spawnSync(BIN, [], { encoding: 'utf8', timeout: 10_000, input: '', env: { PATH: process.env.PATH, HERMES_MCP_LSP_TRUSTED_ROOTS: 'relative/root' } });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /HERMES_MCP_LSP_TRUSTED_ROOTS entries must be absolute paths/);
  assert.equal(r.stdout, '', 'stdout is the protocol: nothing else is written there');
});
