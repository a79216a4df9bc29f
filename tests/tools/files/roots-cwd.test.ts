import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// Relative paths resolve against the owner's terminal cwd only while that cwd is inside a root.
// After a `cd` out of the roots they are refused (PATH_OUTSIDE_ROOTS, naming the cwd) rather than
// resolved there or silently re-anchored at some root; absolute paths inside a root still work.

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

test('with the cwd outside the roots, relative paths are refused by every file tool', async () => {
  const outside = temp.make('roots-cwd-outside-');
  fs.writeFileSync(join(outside, 'here.txt'), 'outside cwd file\n');
  const c = cases.make({ cwd: () => outside });
  const e = await expectCode(c.read.handler({ path: 'here.txt' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  assert.ok(e.message.includes(`'here.txt'`) && e.message.includes(outside) && e.message.includes('HERMES_MCP_ROOTS='), e.message);
  assert.ok(!e.message.includes('outside cwd file'));
  await expectCode(c.write.handler({ path: 'new.txt', content: 'x' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  await expectCode(c.patch.handler({ path: 'here.txt', old_string: 'outside', new_string: 'x' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  await expectCode(c.patch.handler({ mode: 'patch', patch: '*** Begin Patch\n*** Add File: added.txt\n+x\n*** End Patch' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  await expectCode(c.search.handler({ pattern: 'outside' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  // Even a relative path that would lead back into a root: the cwd is not a place to resolve from.
  await expectCode(c.read.handler({ path: join('..', '..', c.p('x.txt')) }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  assert.deepEqual(fs.readdirSync(outside).sort(), ['here.txt']);
  assert.equal(fs.readFileSync(join(outside, 'here.txt'), 'utf8'), 'outside cwd file\n');
});

test('with the cwd outside the roots, absolute paths inside a root still work', async () => {
  const outside = temp.make('roots-cwd-outside-');
  const c = cases.make({ cwd: () => outside });
  c.file('in.txt', 'inside\n');
  assert.equal((await call(c.read, { path: c.p('in.txt') })).content, '1|inside');
});

test('with the cwd back inside a root, relative paths resolve against it again', async () => {
  let cwd = temp.make('roots-cwd-outside-');
  const c = cases.make({ cwd: () => cwd });
  c.file('sub/in.txt', 'inside\n');
  await expectCode(c.read.handler({ path: 'in.txt' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  cwd = c.p('sub');
  assert.equal((await call(c.read, { path: 'in.txt' })).content, '1|inside');
});

test('hermes mode: relative paths resolve against any cwd, as in Hermes', async () => {
  const outside = temp.make('roots-cwd-outside-');
  fs.writeFileSync(join(outside, 'here.txt'), 'outside cwd file\n');
  const c = cases.make({ access: 'hermes', cwd: () => outside });
  assert.equal((await call(c.read, { path: 'here.txt' })).content, '1|outside cwd file');
});
