import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// A root that does not exist admits nothing. The file tools judge a path that exists and whose real
// path is under a root as configured without resolving the roots; a path that does not exist must
// still be judged against the real roots, or a write under a missing root would create it.

const cases = new Cases();
after(() => cases.cleanup());

test('under a configured root that does not exist, nothing is read or created', async () => {
  const c = cases.make();
  const missing = join(c.root, 'not-yet');
  const only = cases.make({ roots: [missing] });
  for (const path of [join(missing, 'new.txt'), join(missing, 'deep', 'new.txt')]) {
    await expectCode(only.write.handler({ path, content: 'x\n' }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
    await expectCode(only.read.handler({ path }, ctx), ErrorCode.PATH_OUTSIDE_ROOTS);
  }
  assert.equal(fs.existsSync(missing), false, 'the missing root was not created');
});

test('once the root exists, the same paths are read and written', async () => {
  const c = cases.make();
  const later = join(c.root, 'later');
  const only = cases.make({ roots: [later] });
  fs.mkdirSync(later);
  const path = join(later, 'new.txt');
  await call(only.write, { path, content: 'hello\n' });
  assert.equal((await call(only.read, { path })).content, '1|hello');
});
