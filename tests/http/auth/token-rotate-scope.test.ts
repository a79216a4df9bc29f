import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { authCli, createStaticToken } from '../../helpers/auth.js';
import { tempDirs } from '../../helpers/temp.js';

// Rotating a static token replaces its secret, not its rights: a read-only token stays read-only
// unless the operator names another scope with --scope.

const dirs = tempDirs();
after(() => dirs.removeAll());

function scopeOf(home: string, name: string): unknown {
  const tokens = authCli(home, ['token', 'list', '--json']).json.tokens as Array<{ name: string; scope: string }>;
  return tokens.find((t) => t.name === name)?.scope;
}

test('token rotate keeps the stored scope; --scope changes it', () => {
  const home = dirs.make('hmcp-rotate-');
  createStaticToken(home, 'reader', 'read');
  const rotated = authCli(home, ['token', 'rotate', 'reader', '--json']);
  assert.equal(rotated.status, 0, rotated.stderr);
  assert.equal(rotated.json.scope, 'hermes:read');
  assert.equal(scopeOf(home, 'reader'), 'hermes:read');
  const widened = authCli(home, ['token', 'rotate', 'reader', '--scope', 'full', '--json']);
  assert.equal(widened.json.scope, 'hermes:full');
  assert.equal(scopeOf(home, 'reader'), 'hermes:full');
});
