import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { Cases, ctx, expectCode } from './fixture.js';

// A path the kernel could never open — a NUL byte, over PATH_MAX (4096 with its NUL), or a
// component over NAME_MAX (255) — is bad input: INVALID_PATH, in both file-access modes, never an
// INTERNAL_ERROR from deep inside a file system call.

const cases = new Cases();
after(() => cases.cleanup());

const BAD: Array<[string, string, RegExp]> = [
  ['NUL byte', 'notes\0.txt', /NUL byte/],
  ['over PATH_MAX', 'd/'.repeat(2100) + 'f.txt', /over the 4095-byte limit \(PATH_MAX\)/],
  ['component over NAME_MAX', 'x'.repeat(256) + '.txt', /component is 260 bytes long, over the 255-byte limit \(NAME_MAX\)/],
  ['multi-byte component over NAME_MAX', 'é'.repeat(128), /component is 256 bytes long/],
];

for (const mode of ['roots', 'hermes'] as const) {
  for (const [what, path, message] of BAD) {
    test(`${what} is INVALID_PATH for every file tool (${mode} mode)`, async () => {
      const c = cases.make({ access: mode });
      const e = await expectCode(c.read.handler({ path }, ctx), ErrorCode.INVALID_PATH);
      assert.match(e.message, message);
      assert.ok(e.message.length < 400, 'the message quotes a shortened path');
      await expectCode(c.write.handler({ path, content: 'x' }, ctx), ErrorCode.INVALID_PATH);
      await expectCode(c.patch.handler({ path, old_string: 'a', new_string: 'b' }, ctx), ErrorCode.INVALID_PATH);
      await expectCode(c.search.handler({ pattern: 'a', path }, ctx), ErrorCode.INVALID_PATH);
      await expectCode(c.patch.handler({ mode: 'patch', patch: `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch` }, ctx), ErrorCode.INVALID_PATH);
    });
  }
}

test('the longest valid names are still fine', async () => {
  const c = cases.make();
  const name = 'n'.repeat(255);
  await expectCode(c.read.handler({ path: name }, ctx), ErrorCode.FILE_NOT_FOUND);
});
