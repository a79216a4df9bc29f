import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { tempDirs } from '../helpers/temp.js';

// npm's `prepare` (scripts/prepare.sh): a full install builds dist/; a production install
// (`npm ci --omit=dev` after a build) has no type packages and keeps the dist/ it has, even though
// npm keeps TypeScript itself there (valibot's optional peer); without a dist/ it refuses, saying
// how to get one.

const temp = tempDirs();
after(() => temp.removeAll());
const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** A package directory whose `build` script only leaves a mark, with the given parts installed. */
function checkout(parts: { tsc?: boolean; typesNode?: boolean; dist?: boolean }): string {
  const dir = temp.make('hmcp-prepare-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', scripts: { build: 'echo built > built.txt' } }));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  if (parts.tsc) {
    writeFileSync(join(dir, 'node_modules', '.bin', 'tsc'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'node_modules', '.bin', 'tsc'), 0o755);
  }
  if (parts.typesNode) {
    mkdirSync(join(dir, 'node_modules', '@types', 'node'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', '@types', 'node', 'package.json'), '{}');
  }
  if (parts.dist) {
    mkdirSync(join(dir, 'dist', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'bin', 'gateway.js'), '// built\n');
  }
  return dir;
}

function prepare(dir: string): { status: number | null; stderr: string } {
  const r = spawnSync('sh', ['-c', pkg.scripts.prepare!.replace('scripts/prepare.sh', join(packageRoot(), 'scripts', 'prepare.sh'))], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { status: r.status, stderr: r.stderr };
}

test('a full install (the compiler and the type packages) builds', () => {
  const dir = checkout({ tsc: true, typesNode: true });
  assert.equal(prepare(dir).status, 0);
  assert.ok(existsSync(join(dir, 'built.txt')));
});

test('a production install over a built dist/ keeps it, although TypeScript itself is there', () => {
  const dir = checkout({ tsc: true, dist: true });
  const r = prepare(dir);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /dev dependencies omitted: using dist\/ as built/);
  assert.equal(existsSync(join(dir, 'built.txt')), false, 'no build was tried');
  assert.equal(readFileSync(join(dir, 'dist', 'bin', 'gateway.js'), 'utf8'), '// built\n');
});

test('a production install with no dist/ refuses and says how to get one', () => {
  const r = prepare(checkout({}));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /dist\/ is not built.*\n.*build first with a full install \(npm ci\), then npm ci --omit=dev; docs\/operations\.md: Production install/);
});
