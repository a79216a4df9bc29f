import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { dependencyStamp, markInstalled, stageCheckout } from '../../scripts/staged-checkout.js';
import { tempDirs } from '../helpers/temp.js';

// test-on-node's staged copy (scripts/staged-checkout.ts): rebuilt from the checkout on every run,
// keeping the previous node_modules (natives compiled for that Node) only when package.json, the
// lock file and the Node version are the ones they were installed from, and the install finished.

const temp = tempDirs();
after(() => temp.removeAll());

function checkout(lock: string): string {
  const root = temp.make('hmcp-stage-root-');
  writeFileSync(join(root, 'package.json'), '{"name":"x"}');
  writeFileSync(join(root, 'package-lock.json'), lock);
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  return root;
}

const FILES = ['package.json', 'package-lock.json', 'src/a.ts'];

/** A stage installed once from `root` on `node`; returns its paths. */
function installedStage(root: string, node: string): { stage: string; stampFile: string } {
  const dir = temp.make('hmcp-stage-');
  const stage = join(dir, 'checkout');
  const stampFile = join(dir, 'checkout-deps.json');
  assert.equal(stageCheckout(root, FILES, stage, stampFile, dependencyStamp(root, node)), false, 'a first stage has nothing to keep');
  mkdirSync(join(stage, 'node_modules', 'native'), { recursive: true });
  writeFileSync(join(stage, 'node_modules', 'native', 'addon.node'), 'built for ' + node);
  writeFileSync(join(stage, 'stale.txt'), 'a file the checkout no longer has');
  markInstalled(stampFile, dependencyStamp(root, node));
  return { stage, stampFile };
}

test('same package.json, lock and Node version: node_modules kept, every other file staged afresh', () => {
  const root = checkout('{"lockfileVersion":3}');
  const { stage, stampFile } = installedStage(root, 'v24.22.3');
  writeFileSync(join(root, 'src', 'a.ts'), 'export const changed = 1;\n');
  assert.equal(stageCheckout(root, FILES, stage, stampFile, dependencyStamp(root, 'v24.22.3')), true);
  assert.equal(readFileSync(join(stage, 'node_modules', 'native', 'addon.node'), 'utf8'), 'built for v24.22.3');
  assert.equal(readFileSync(join(stage, 'src', 'a.ts'), 'utf8'), 'export const changed = 1;\n');
  assert.equal(existsSync(join(stage, 'stale.txt')), false);
  assert.equal(existsSync(stampFile), false, 'the stamp is only written back after the next install succeeds');
});

test('another Node version (even a minor one): node_modules installed afresh', () => {
  const root = checkout('{"lockfileVersion":3}');
  const { stage, stampFile } = installedStage(root, 'v24.22.3');
  assert.equal(stageCheckout(root, FILES, stage, stampFile, dependencyStamp(root, 'v24.23.0')), false);
  assert.equal(existsSync(join(stage, 'node_modules')), false);
  assert.equal(existsSync(join(stage, 'src', 'a.ts')), true);
});

test('a changed lock file: node_modules installed afresh', () => {
  const root = checkout('{"lockfileVersion":3}');
  const { stage, stampFile } = installedStage(root, 'v22.23.5');
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{"node_modules/x":{}}}');
  assert.equal(stageCheckout(root, FILES, stage, stampFile, dependencyStamp(root, 'v22.23.5')), false);
  assert.equal(existsSync(join(stage, 'node_modules')), false);
});

test('an install that never finished (no stamp): node_modules installed afresh', () => {
  const root = checkout('{"lockfileVersion":3}');
  const { stage, stampFile } = installedStage(root, 'v22.23.5');
  // The next run removes the stamp before its install; that install is interrupted.
  assert.equal(stageCheckout(root, FILES, stage, stampFile, dependencyStamp(root, 'v22.23.5')), true);
  assert.equal(stageCheckout(root, FILES, stage, stampFile, dependencyStamp(root, 'v22.23.5')), false);
  assert.equal(existsSync(join(stage, 'node_modules')), false);
});
