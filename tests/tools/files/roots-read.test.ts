import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// read_file stays inside HERMES_MCP_ROOTS (the default file access): an outside file is refused
// whichever way the path reaches it, and the refusal names the path and the roots, never content.

const cases = new Cases();
const temp = tempDirs();
after(() => {
  cases.cleanup();
  temp.removeAll();
});

const SECRET = 'outside-secret-7f3a';

function outsideFile(): string {
  const dir = temp.make('roots-read-outside-');
  const file = join(dir, 'secret.txt');
  fs.writeFileSync(file, `${SECRET}\n`);
  return file;
}

async function refused(c: ReturnType<Cases['make']>, path: string): Promise<void> {
  const e = await expectCode(c.read.handler({ path }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  assert.ok(e.message.includes(`'${path}'`), `names the path the caller gave: ${e.message}`);
  assert.ok(e.message.includes(`HERMES_MCP_ROOTS=${c.root}`), `names the roots setting: ${e.message}`);
  assert.ok(!JSON.stringify({ message: e.message, details: e.details }).includes(SECRET), 'no content of the refused file');
}

test('an absolute path outside the roots is refused (/etc/passwd too)', async () => {
  const c = cases.make();
  await refused(c, outsideFile());
  await expectCode(c.read.handler({ path: '/etc/passwd' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
});

test('a symlink inside a root that points outside is refused', async () => {
  const c = cases.make();
  fs.symlinkSync(outsideFile(), c.p('link.txt'));
  await refused(c, 'link.txt');
});

test('a symlink chain that ends outside is refused', async () => {
  const c = cases.make();
  fs.symlinkSync(outsideFile(), c.p('hop2'));
  fs.symlinkSync(c.p('hop2'), c.p('hop1'));
  await refused(c, 'hop1');
});

test('a directory symlink in the middle of the path is refused', async () => {
  const c = cases.make();
  const file = outsideFile();
  fs.symlinkSync(join(file, '..'), c.p('outdir'));
  await refused(c, 'outdir/secret.txt');
});

test('`..` out of a root is refused', async () => {
  const c = cases.make();
  const file = outsideFile();
  await refused(c, `${c.proj}${'/..'.repeat(c.proj.split('/').length - 1)}${file}`);
});

test('inside the roots nothing changes: plain files and symlinks that stay inside are read', async () => {
  const c = cases.make();
  c.file('docs/a.txt', 'alpha\n');
  fs.symlinkSync(c.p('docs'), c.p('docs-link'));
  assert.equal((await call(c.read, { path: 'docs-link/a.txt' })).content, '1|alpha');
  assert.equal((await call(c.read, { path: c.p('docs/a.txt') })).content, '1|alpha');
});

test('a root that is itself a symlink admits the files below it', async () => {
  const c = cases.make();
  c.file('b.txt', 'beta\n');
  const alias = join(temp.make('roots-read-alias-'), 'proj-alias');
  fs.symlinkSync(c.proj, alias);
  const aliased = cases.make({ roots: [alias] });
  assert.equal((await call(aliased.read, { path: join(alias, 'b.txt') })).content, '1|beta');
  assert.equal((await call(aliased.read, { path: c.p('b.txt') })).content, '1|beta', 'the real path of the root counts');
});
