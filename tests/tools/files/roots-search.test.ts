import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// search_files stays inside HERMES_MCP_ROOTS: an outside search root — a directory, a file, a
// symlink to one, /proc/self/maps — is refused before anything is walked or read.

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

function outsideDir(): string {
  const dir = temp.make('roots-search-outside-');
  fs.writeFileSync(join(dir, 'notes.txt'), 'needle outside\n');
  return dir;
}

test('an outside directory or file is not searched', async () => {
  const c = cases.make();
  const dir = outsideDir();
  for (const target of ['content', 'files']) {
    const e = await expectCode(c.search.handler({ pattern: 'needle', path: dir, target }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
    assert.ok(e.message.includes(`'${dir}'`) && e.message.includes('HERMES_MCP_ROOTS='), e.message);
    assert.ok(!e.message.includes('needle outside'));
  }
  await expectCode(c.search.handler({ pattern: 'needle', path: join(dir, 'notes.txt') }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  await expectCode(c.search.handler({ pattern: 'root', path: '/etc' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
});

test('a symlink inside a root to an outside directory is not followed as a search root', async () => {
  const c = cases.make();
  fs.symlinkSync(outsideDir(), c.p('outdir'));
  await expectCode(c.search.handler({ pattern: 'needle', path: 'outdir' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  // The walk of the root itself still skips symlinks, so the outside file never shows up.
  const r = await call(c.search, { pattern: 'needle' });
  assert.equal(r.total_count, 0);
});

test('/proc/self/maps is refused (outside the roots), and by the device guard in hermes mode', async () => {
  const c = cases.make();
  await expectCode(c.search.handler({ pattern: '.', path: '/proc/self/maps' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  const h = cases.make({ access: 'hermes' });
  const e = await expectCode(h.search.handler({ pattern: '.', path: '/proc/self/maps' }, ctx), ErrorCode.FILE_BLOCKED);
  assert.match(e.message, /device file/);
});

test('inside the roots search works as before', async () => {
  const c = cases.make();
  c.file('src/a.txt', 'needle inside\n');
  const r = await call(c.search, { pattern: 'needle', path: 'src' });
  assert.deepEqual(r.matches, [{ path: 'src/a.txt', line: 1, content: 'needle inside' }]);
});
