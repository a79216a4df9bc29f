import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// patch stays inside HERMES_MCP_ROOTS in both modes — replace, and V4A Update/Add/Delete/Move —
// and a refusal never quotes the outside file (no "Did you mean" snippet, no deletion diff).

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

const SECRET_LINE = 'password = hunter2-outside';
const ORIGINAL = `[db]\n${SECRET_LINE}\n`;
const v4a = (...body: string[]): string => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

function outsideDir(): string {
  const dir = temp.make('roots-patch-outside-');
  fs.writeFileSync(join(dir, 'conf.ini'), ORIGINAL);
  return dir;
}

async function refused(promise: Promise<unknown>): Promise<GatewayError> {
  const e = await expectCode(promise, ErrorCode.PATH_OUTSIDE_ROOTS);
  const text = JSON.stringify({ message: e.message, details: e.details });
  assert.ok(!text.includes('hunter2'), `no content of the outside file: ${text}`);
  assert.match(e.message, /HERMES_MCP_ROOTS=/);
  return e;
}

test('replace mode: an outside file is not changed, and a near miss quotes nothing of it', async () => {
  const c = cases.make();
  const dir = outsideDir();
  const file = join(dir, 'conf.ini');
  await refused(c.patch.handler({ path: file, old_string: 'password = hunter2-outside', new_string: 'password = x' }, ctx));
  // Before confinement this near miss answered PATCH_NO_MATCH with the closest lines of the file.
  await refused(c.patch.handler({ path: file, old_string: 'password = hunter3-outside', new_string: 'x' }, ctx));
  fs.symlinkSync(file, c.p('conf-link.ini'));
  await refused(c.patch.handler({ path: 'conf-link.ini', old_string: 'hunter2', new_string: 'x' }, ctx));
  assert.equal(fs.readFileSync(file, 'utf8'), ORIGINAL);
});

test('V4A Update of an outside file (direct or through a directory symlink) is refused', async () => {
  const c = cases.make();
  const dir = outsideDir();
  fs.symlinkSync(dir, c.p('outdir'));
  for (const path of [join(dir, 'conf.ini'), 'outdir/conf.ini']) {
    await refused(c.patch.handler({ mode: 'patch', patch: v4a(`*** Update File: ${path}`, '@@', `-${SECRET_LINE}`, '+password = x') }, ctx));
    await refused(c.patch.handler({ mode: 'patch', patch: v4a(`*** Update File: ${path}`, '@@', '-password = nope', '+x') }, ctx));
  }
  assert.equal(fs.readFileSync(join(dir, 'conf.ini'), 'utf8'), ORIGINAL);
});

test('V4A Add outside (absolute, dangling symlink) creates nothing', async () => {
  const c = cases.make();
  const dir = outsideDir();
  fs.symlinkSync(join(dir, 'planted.sh'), c.p('dangling.sh'));
  await refused(c.patch.handler({ mode: 'patch', patch: v4a(`*** Add File: ${join(dir, 'new.txt')}`, '+x') }, ctx));
  await refused(c.patch.handler({ mode: 'patch', patch: v4a('*** Add File: dangling.sh', '+echo planted') }, ctx));
  assert.deepEqual(fs.readdirSync(dir), ['conf.ini']);
});

test('V4A Delete of an outside file is refused without a diff of its content', async () => {
  const c = cases.make();
  const dir = outsideDir();
  await refused(c.patch.handler({ mode: 'patch', patch: v4a(`*** Delete File: ${join(dir, 'conf.ini')}`) }, ctx));
  assert.equal(fs.readFileSync(join(dir, 'conf.ini'), 'utf8'), ORIGINAL);
});

test('V4A Move out of or into the roots is refused; nothing moves', async () => {
  const c = cases.make();
  const dir = outsideDir();
  c.file('inside.txt', 'in\n');
  await refused(c.patch.handler({ mode: 'patch', patch: v4a(`*** Move File: inside.txt -> ${join(dir, 'stolen.txt')}`) }, ctx));
  await refused(c.patch.handler({ mode: 'patch', patch: v4a(`*** Move File: ${join(dir, 'conf.ini')} -> pulled.ini`) }, ctx));
  assert.equal(c.text('inside.txt'), 'in\n');
  assert.equal(fs.existsSync(c.p('pulled.ini')), false);
  assert.deepEqual(fs.readdirSync(dir), ['conf.ini']);
});

test('one outside path refuses the whole V4A patch before anything inside is written', async () => {
  const c = cases.make();
  const dir = outsideDir();
  c.file('a.txt', 'a\n');
  await refused(c.patch.handler({ mode: 'patch', patch: v4a('*** Update File: a.txt', '@@', '-a', '+A', `*** Delete File: ${join(dir, 'conf.ini')}`) }, ctx));
  assert.equal(c.text('a.txt'), 'a\n');
  const r = await call(c.patch, { mode: 'patch', patch: v4a('*** Update File: a.txt', '@@', '-a', '+A') });
  assert.equal(r.success, true, 'inside the roots V4A works as before');
  assert.equal(c.text('a.txt'), 'A\n');
});
