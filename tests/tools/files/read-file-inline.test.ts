import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, test } from 'node:test';
import { onLocalFileSystem } from '../../../supervisor/tools/files/access/real-path.js';
import { Cases, call } from './fixture.js';

// A file of at most readFileInlineMaxBytes on a local file system is read on the event loop, a
// larger one through the thread pool: both must answer the same, page for page.

const cases = new Cases();
after(() => cases.cleanup());

const LINES = Array.from({ length: 3000 }, (_, i) => `line ${i} ${'é'.repeat(i % 7)}${i % 500 === 0 ? 'x'.repeat(5000) : ''}`);

const local = onLocalFileSystem(fs.realpathSync(cases.base));

test('the same pages inline and through the thread pool', { skip: !local && 'the temporary directory is not on a local file system here' }, async () => {
  const inline = cases.make();
  const pooled = cases.make({ readFileInlineMaxBytes: 1 });
  const text = LINES.join('\n');
  for (const c of [inline, pooled]) {
    c.file('big.txt', text);
    c.file('small.py', 'print(1)\n');
    c.file('empty.txt', '');
  }
  assert.ok(Buffer.byteLength(text) <= 262_144, 'the default inline size covers the big file, so one side reads it inline');
  const pages = [
    { path: 'big.txt' },
    { path: 'big.txt', offset: 1000, limit: 700 },
    { path: 'big.txt', offset: 2990, limit: 50 },
    { path: 'big.txt', offset: 5000 },
    { path: 'small.py' },
    { path: 'empty.txt' },
  ];
  for (const args of pages) {
    assert.deepEqual(await call(inline.read, args), await call(pooled.read, args), JSON.stringify(args));
  }
});
