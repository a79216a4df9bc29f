import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { mirroredTest, mirrorReport, summary } from '../../scripts/mirror-report.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

function tree(files: string[]): string {
  const root = temp.make('hmcp-mirror-');
  for (const f of files) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    writeFileSync(join(root, f), '');
  }
  return root;
}

test('the mirrored path drops supervisor/ and adds .test before .ts', () => {
  assert.equal(mirroredTest('supervisor/tools/files/read/index.ts'), 'tests/tools/files/read/index.test.ts');
  assert.equal(mirroredTest('shared/a.ts'), 'tests/shared/a.test.ts');
  assert.equal(mirroredTest('workers/lsp/pool.ts'), 'tests/workers/lsp/pool.test.ts');
  assert.equal(mirroredTest('bin/gateway.ts'), 'tests/bin/gateway.test.ts');
});

test('the report counts the product files with a test at the mirrored path, leaving out declarations and the browser bundle', () => {
  const root = tree([
    'shared/a.ts',
    'shared/types.d.ts',
    'supervisor/core/b.ts',
    'supervisor/http/app-view/browser/main.ts',
    'workers/c.ts',
    'bin/d.ts',
    'bin/readme.md',
    'tests/shared/a.test.ts',
    'tests/core/b.test.ts',
    'tests/workers/c-other.test.ts',
    'tests/supervisor/workers/c.test.ts',
  ]);
  const report = mirrorReport(root);
  assert.deepEqual(report.files, ['bin/d.ts', 'shared/a.ts', 'supervisor/core/b.ts', 'workers/c.ts']);
  assert.deepEqual(report.missing, ['bin/d.ts', 'workers/c.ts']);
  assert.equal(summary(report), '2 of 4 product files have a mirrored unit test (50%)');
});
