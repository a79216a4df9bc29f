import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { operatorCommand } from '../../supervisor/platform/operator-command.js';
import { tempDirs } from '../helpers/temp.js';

// Which form the texts give: the bin by name when the first one on PATH is this package's own
// (after symlinks, as npm link and npm install -g make it), else the checkout's npm script.

const temp = tempDirs();
after(() => temp.removeAll());
const authBin = join(packageRoot(), 'dist', 'bin', 'auth.js');

function binDir(name: string, make: (path: string) => void): string {
  const dir = temp.make('hmcp-opcmd-');
  mkdirSync(dir, { recursive: true });
  make(join(dir, name));
  return dir;
}

test('this package\'s own bin first on PATH (through a symlink): the bin by name', () => {
  const linked = binDir('hermes-mcp-auth', (p) => symlinkSync(authBin, p));
  assert.deepEqual(operatorCommand('hermes-mcp-auth', `/nonexistent:${linked}`), { command: 'hermes-mcp-auth', inCheckout: false });
});

test('no such bin on PATH: the checkout\'s npm script for each bin', () => {
  assert.deepEqual(operatorCommand('hermes-mcp-auth', ''), { command: 'npm run auth --', inCheckout: true });
  assert.deepEqual(operatorCommand('hermes-mcp-admission', '/nonexistent'), { command: 'npm run admission --', inCheckout: true });
  assert.deepEqual(operatorCommand('hermes-mcp-gateway', '/nonexistent'), { command: 'npm run gateway --', inCheckout: true });
});

test('another install first on PATH (a copy, maybe another version) wins the look-up, so the npm script is said', () => {
  const copy = binDir('hermes-mcp-auth', (p) => copyFileSync(authBin, p));
  const linked = binDir('hermes-mcp-auth', (p) => symlinkSync(authBin, p));
  assert.deepEqual(operatorCommand('hermes-mcp-auth', `${copy}:${linked}`), { command: 'npm run auth --', inCheckout: true });
  assert.deepEqual(operatorCommand('hermes-mcp-auth', `${linked}:${copy}`), { command: 'hermes-mcp-auth', inCheckout: false });
});

test('a bin of another name pointing at this package\'s file does not count for the one asked', () => {
  const linked = binDir('hermes-mcp-auth', (p) => symlinkSync(authBin, p));
  assert.deepEqual(operatorCommand('hermes-mcp-admission', linked), { command: 'npm run admission --', inCheckout: true });
});
