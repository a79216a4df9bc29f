import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mirroredTest, productFiles } from '../../scripts/mirror-report.js';
import { packageRoot } from '../../shared/package-root.js';
import { importGraph, sourceFiles, type ImportGraph } from '../helpers/import-graph.js';

// A test at a product file's mirrored path (tests/X/Y.test.ts for supervisor/X/Y.ts) is that file's
// unit test: it calls the file's exports and never starts a whole gateway. So neither it nor a test
// helper it imports (directly or through other helpers) imports the gateway's start entry, the
// gateway program, or the test helpers that start one of them.

const GATEWAY_STARTERS = [
  join('supervisor', 'compose', 'index.ts'),
  join('supervisor', 'http', 'server.ts'),
  join('bin', 'gateway.ts'),
  join('tests', 'helpers', 'gateway.ts'),
  join('tests', 'helpers', 'gateway-bin.ts'),
];

/**
 * `test -> starter` for each of `tests` that reaches a gateway starter through imports of files under
 * tests/ (product files are not followed: their own imports are the layering test's business).
 */
function gatewayStarts(graph: ImportGraph, tests: readonly string[]): string[] {
  const found: string[] = [];
  for (const start of tests) {
    const seen = new Set<string>([start]);
    const queue = [start];
    while (queue.length > 0) {
      for (const to of graph.get(queue.shift()!) ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        if (GATEWAY_STARTERS.includes(to)) found.push(`${start} -> ${to}`);
        else if (to.startsWith('tests/')) queue.push(to);
      }
    }
  }
  return found;
}

test('made-up violation: a mirrored test reaching a gateway starter directly or through a helper', () => {
  const graph: ImportGraph = new Map([
    ['tests/shared/a.test.ts', ['shared/a.ts', 'tests/helpers/temp.ts']],
    ['tests/shared/b.test.ts', ['tests/helpers/hermes.ts']],
    ['tests/helpers/hermes.ts', ['tests/helpers/gateway.ts']],
    ['tests/platform/c.test.ts', ['supervisor/http/server.ts', 'bin/gateway.ts']],
    ['tests/doctor/d.test.ts', ['supervisor/doctor/d.ts']],
    ['supervisor/doctor/d.ts', ['supervisor/http/server.ts']],
  ]);
  assert.deepEqual(gatewayStarts(graph, ['tests/shared/a.test.ts', 'tests/shared/b.test.ts', 'tests/platform/c.test.ts', 'tests/doctor/d.test.ts']), [
    'tests/shared/b.test.ts -> tests/helpers/gateway.ts',
    'tests/platform/c.test.ts -> supervisor/http/server.ts',
    'tests/platform/c.test.ts -> bin/gateway.ts',
  ]);
});

const root = packageRoot();
const product = productFiles(root);
const mirrored = product.map(mirroredTest).filter((t) => existsSync(join(root, t)));
const graph = importGraph(root, [...product, ...sourceFiles(root, ['tests'])]);

test('the mirrored tests and the gateway starters are found', () => {
  assert.ok(mirrored.length > 50, `${mirrored.length} mirrored tests`);
  assert.ok(GATEWAY_STARTERS.every((f) => graph.has(f)));
});

test('no mirrored unit test starts a whole gateway', () => {
  assert.deepEqual(gatewayStarts(graph, mirrored), [], 'a test that starts a gateway keeps a name of its own; the unit test calls the file directly');
});
