import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// write_file stays inside HERMES_MCP_ROOTS: nothing outside is created or overwritten, whichever
// way the path reaches it — absolute, symlink, symlink chain, dangling symlink, directory symlink.

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

const ORIGINAL = 'outside original\n';

function outsideDir(): string {
  const dir = temp.make('roots-write-outside-');
  fs.writeFileSync(join(dir, 'victim.txt'), ORIGINAL);
  return dir;
}

async function refused(c: ReturnType<Cases['make']>, path: string): Promise<void> {
  const e = await expectCode(c.write.handler({ path, content: 'pwned\n' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  assert.ok(e.message.includes(`'${path}'`), e.message);
  assert.ok(e.message.includes('HERMES_MCP_ROOTS='), e.message);
}

test('an absolute path outside the roots is neither created nor overwritten', async () => {
  const c = cases.make();
  const dir = outsideDir();
  await refused(c, join(dir, 'victim.txt'));
  await refused(c, join(dir, 'new.txt'));
  await refused(c, join(dir, 'deep', 'er', 'new.txt'));
  assert.equal(fs.readFileSync(join(dir, 'victim.txt'), 'utf8'), ORIGINAL);
  assert.deepEqual(fs.readdirSync(dir), ['victim.txt'], 'no file or parent directory created outside');
});

test('a symlink to an outside file is not written through', async () => {
  const c = cases.make();
  const dir = outsideDir();
  fs.symlinkSync(join(dir, 'victim.txt'), c.p('link.txt'));
  await refused(c, 'link.txt');
  assert.equal(fs.readFileSync(join(dir, 'victim.txt'), 'utf8'), ORIGINAL);
  assert.equal(fs.lstatSync(c.p('link.txt')).isSymbolicLink(), true, 'the link itself is untouched');
});

test('a symlink chain that ends outside is not written through', async () => {
  const c = cases.make();
  const dir = outsideDir();
  fs.symlinkSync(join(dir, 'victim.txt'), c.p('hop2'));
  fs.symlinkSync(c.p('hop2'), c.p('hop1'));
  await refused(c, 'hop1');
  assert.equal(fs.readFileSync(join(dir, 'victim.txt'), 'utf8'), ORIGINAL);
});

test('a dangling symlink pointing outside does not create its target', async () => {
  const c = cases.make();
  const dir = outsideDir();
  fs.symlinkSync(join(dir, 'created.txt'), c.p('dangling'));
  await refused(c, 'dangling');
  assert.equal(fs.existsSync(join(dir, 'created.txt')), false);
});

test('a directory symlink in the middle of the path is refused, also for new subdirectories', async () => {
  const c = cases.make();
  const dir = outsideDir();
  fs.symlinkSync(dir, c.p('outdir'));
  await refused(c, 'outdir/victim.txt');
  await refused(c, 'outdir/new/sub/file.txt');
  assert.equal(fs.readFileSync(join(dir, 'victim.txt'), 'utf8'), ORIGINAL);
  assert.deepEqual(fs.readdirSync(dir), ['victim.txt']);
});

test('inside the roots writes work as before, through symlinks that stay inside', async () => {
  const c = cases.make();
  c.file('real/target.txt', 'old\n');
  fs.symlinkSync(c.p('real/target.txt'), c.p('alias.txt'));
  await call(c.read, { path: 'alias.txt' });
  const r = await call(c.write, { path: 'alias.txt', content: 'new\n' });
  assert.equal(r.resolved_path, fs.realpathSync(c.p('real/target.txt')));
  assert.equal(c.text('real/target.txt'), 'new\n');
  assert.equal((await call(c.write, { path: 'made/here.txt', content: 'x\n' })).dirs_created, true);
  assert.equal(c.text('made/here.txt'), 'x\n');
});
