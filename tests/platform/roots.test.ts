import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isGatewayError } from '../../shared/errors.js';
import { resolveInsideRoots } from '../../supervisor/platform/roots.js';
import { tempDirs } from '../helpers/temp.js';

// A path that does not exist is FILE_NOT_FOUND when it is inside the roots (lexically, and the
// nearest part of it that exists really is inside), and PATH_OUTSIDE_ROOTS otherwise, with the same
// message as an existing path outside: a refusal never tells what exists outside the roots.

const dirs = tempDirs();
after(() => dirs.removeAll());

async function refusal(path: string, roots: string[]): Promise<{ code: string; message: string }> {
  try {
    await resolveInsideRoots(path, roots);
  } catch (e) {
    assert.ok(isGatewayError(e), String(e));
    return { code: e.code, message: e.message };
  }
  assert.fail(`${path} was accepted`);
}

const base = realpathSync(dirs.make('hmcp-roots-missing-'));
const root = join(base, 'work');
const outside = join(base, 'outside');
mkdirSync(join(root, 'proj'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(root, 'proj', 'notes.txt'), 'x');
writeFileSync(join(outside, 'secret.ts'), 'x');
symlinkSync(outside, join(root, 'escape'));
symlinkSync(join(outside, 'absent.ts'), join(root, 'dangling.ts'));
symlinkSync(root, join(base, 'root-link'));

test('missing inside a root: FILE_NOT_FOUND, also under a file and under a root configured through a symlink', async () => {
  assert.deepEqual(await refusal(join(root, 'proj', 'missing.ts'), [root]), { code: 'FILE_NOT_FOUND', message: `no such file or directory: ${join(root, 'proj', 'missing.ts')}` });
  assert.equal((await refusal(join(root, 'no', 'such', 'dir'), [root])).code, 'FILE_NOT_FOUND');
  assert.equal((await refusal(join(root, 'proj', 'notes.txt', 'x'), [root])).code, 'FILE_NOT_FOUND', 'ENOTDIR');
  assert.equal((await refusal(join(root, 'proj', 'missing.ts'), [join(base, 'root-link')])).code, 'FILE_NOT_FOUND', 'lexically under the real path of the root');
  assert.equal((await refusal(join(base, 'root-link', 'missing.ts'), [join(base, 'root-link')])).code, 'FILE_NOT_FOUND', 'lexically under the root as configured');
});

test('missing outside every root, or reached through a link out of a root: PATH_OUTSIDE_ROOTS, worded as for an existing path', async () => {
  const existing = await refusal(join(outside, 'secret.ts'), [root]);
  assert.equal(existing.code, 'PATH_OUTSIDE_ROOTS');
  for (const path of [join(outside, 'missing.ts'), join(root, '..', 'outside', 'missing.ts'), join(root, 'escape', 'missing.ts'), join(root, 'dangling.ts')]) {
    const r = await refusal(path, [root]);
    assert.deepEqual(r, { code: 'PATH_OUTSIDE_ROOTS', message: existing.message.replace(join(outside, 'secret.ts'), path) }, path);
  }
});
