import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packageRoot, packageVersion } from '../../shared/package-root.js';

// The package root is found by walking up to package.json, skipping dist/ (the build output).

test('packageRoot is the directory holding package.json and policy/, above dist/', () => {
  const root = packageRoot();
  assert.ok(existsSync(join(root, 'package.json')));
  assert.ok(existsSync(join(root, 'policy', 'default-limits.json')));
  assert.ok(!root.endsWith('dist'));
  // This test runs from dist/tests/shared/: the root is three levels up from dist's test directory.
  const here = fileURLToPath(new URL('.', import.meta.url));
  assert.ok(here.startsWith(join(root, 'dist') + '/'), `${here} under ${root}/dist`);
  assert.equal(packageRoot(), root);
});

test('packageVersion is package.json\'s version', () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  assert.equal(packageVersion(), pkg.version);
  assert.match(packageVersion(), /^\d+\.\d+\.\d+/);
});
