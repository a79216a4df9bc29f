import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import type { FileAccessMode } from '../../../supervisor/platform/roots.js';
import { tempDirs } from '../../helpers/temp.js';
import { Cases, call, ctx, expectCode } from './fixture.js';

// HERMES_MCP_FILE_ACCESS=hermes is the explicit opt-in to Hermes' unconfined file tools; Hermes'
// own deny lists (credentials, ~/.ssh, project .env files) stay on top in both modes.

const cases = new Cases();
const temp = tempDirs();
let savedHome: string | undefined;
let fakeHome: string;
before(() => {
  // `~` and Hermes' credential deny list follow $HOME (os.homedir()): point it at a throwaway home.
  savedHome = process.env.HOME;
  fakeHome = temp.make('file-access-home-');
  process.env.HOME = fakeHome;
});
after(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  cases.cleanup();
  temp.removeAll();
});

describe('hermes mode reaches outside the roots', () => {
  test('read, write, patch (replace and V4A) and search work on an outside directory', async () => {
    const c = cases.make({ access: 'hermes' });
    const dir = temp.make('file-access-outside-');
    const file = join(dir, 'f.txt');
    assert.equal((await call(c.write, { path: file, content: 'one\n' })).bytes_written, 4);
    assert.equal((await call(c.read, { path: file })).content, '1|one');
    assert.equal((await call(c.patch, { path: file, old_string: 'one', new_string: 'two' })).success, true);
    const v4a = `*** Begin Patch\n*** Add File: ${join(dir, 'g.txt')}\n+three\n*** End Patch`;
    assert.equal((await call(c.patch, { mode: 'patch', patch: v4a })).success, true);
    assert.deepEqual((await call(c.search, { pattern: 'two|three', path: dir, output_mode: 'files_only' })).files, [join(dir, 'f.txt'), join(dir, 'g.txt')]);
    assert.equal(fs.readFileSync(file, 'utf8'), 'two\n');
  });

  test('a symlink out of the roots is followed, as Hermes does', async () => {
    const c = cases.make({ access: 'hermes' });
    const dir = temp.make('file-access-outside-');
    fs.writeFileSync(join(dir, 'target.txt'), 'linked\n');
    fs.symlinkSync(join(dir, 'target.txt'), c.p('link.txt'));
    assert.equal((await call(c.read, { path: 'link.txt' })).content, '1|linked');
  });
});

for (const mode of ['roots', 'hermes'] as FileAccessMode[]) {
  describe(`Hermes' deny lists stay on top (${mode} mode)`, () => {
    const make = () => cases.make({ access: mode, roots: [cases.base, fakeHome] });

    test('~/.ssh and cloud credentials are not written, even inside a root', async () => {
      const c = make();
      const e = await expectCode(c.write.handler({ path: '~/.ssh/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }, ctx), ErrorCode.FILE_BLOCKED);
      assert.match(e.message, /protected system\/credential file/);
      await expectCode(c.write.handler({ path: join(fakeHome, '.aws', 'credentials'), content: '[default]\n' }, ctx), ErrorCode.FILE_BLOCKED);
      await expectCode(c.patch.handler({ mode: 'patch', patch: '*** Begin Patch\n*** Add File: ~/.ssh/id_ed25519\n+key\n*** End Patch' }, ctx), ErrorCode.FILE_BLOCKED);
      assert.equal(fs.existsSync(join(fakeHome, '.ssh')), false);
      assert.equal(fs.existsSync(join(fakeHome, '.aws')), false);
    });

    test('project .env files and Hermes credential stores are not read, even inside a root', async () => {
      const c = make();
      c.file('.env', 'OPENAI_API_KEY=sk-live\n');
      c.file('~/auth.json', '{"token": "x"}\n');
      await expectCode(c.read.handler({ path: '.env' }, ctx), ErrorCode.FILE_BLOCKED);
      await expectCode(c.read.handler({ path: c.p('~/auth.json') }, ctx), ErrorCode.FILE_BLOCKED);
      await expectCode(c.write.handler({ path: c.p('~/config.yaml'), content: 'x: 1\n' }, ctx), ErrorCode.FILE_BLOCKED);
    });
  });
}
