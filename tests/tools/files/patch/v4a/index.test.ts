import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../../../shared/errors.js';
import { parseV4aPatch } from '../../../../../supervisor/tools/files/patch/v4a/index.js';
import { Cases, call, ctx, expectCode, text } from '../../fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

const patch = (...body: string[]): string => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

describe('V4A parser', () => {
  test('parses update (with hint), add, delete and move operations', () => {
    const { operations, error } = parseV4aPatch(
      patch('*** Update File: src/a.py', '@@ def main @@', ' ctx', '-old', '+new', '*** Add File: b.txt', '+hello', '*** Delete File: c.txt', '*** Move File: d.txt -> e/d.txt'),
    );
    assert.equal(error, null);
    assert.deepEqual(
      operations.map((o) => [o.operation, o.filePath, o.newPath]),
      [
        ['update', 'src/a.py', undefined],
        ['add', 'b.txt', undefined],
        ['delete', 'c.txt', undefined],
        ['move', 'd.txt', 'e/d.txt'],
      ],
    );
    assert.equal(operations[0]!.hunks[0]!.contextHint, 'def main');
    assert.deepEqual(
      operations[0]!.hunks[0]!.lines.map((l) => l.prefix + l.content),
      [' ctx', '-old', '+new'],
    );
  });

  test('an Update without hunks and "*** Move to:" are parse errors', () => {
    assert.match(parseV4aPatch(patch('*** Update File: a.txt')).error ?? '', /no hunks found/);
    assert.match(parseV4aPatch(patch('*** Update File: a.txt', '*** Move to: b.txt', '-x', '+y')).error ?? '', /Move to: b\.txt' is not supported/);
  });

  test('CRLF patches parse like LF ones', () => {
    const { operations } = parseV4aPatch(patch('*** Add File: x.txt', '+a', '+b').replace(/\n/g, '\r\n'));
    assert.deepEqual(operations[0]!.hunks[0]!.lines.map((l) => l.content), ['a', 'b']);
  });
});

describe('patch (V4A mode)', () => {
  test('following Hermes 0.22 every file is named by its absolute path, a Move is not linted, and an Add of an existing file is refused', async () => {
    const c = cases.make();
    c.file('app.txt', 'one\ntwo\n');
    c.file('old.txt', 'bye\n');
    c.file('m.txt', 'move me\n');
    const r = await call(c.patch, {
      mode: 'patch',
      patch: patch('*** Update File: app.txt', ' one', '-two', '+2', '*** Add File: docs/new.md', '+# Title', '*** Delete File: old.txt', '*** Move File: m.txt -> n.txt'),
    });
    const abs = (rel: string) => fs.realpathSync(c.p(rel.includes('/') ? rel.split('/')[0]! : '.')) + (rel.includes('/') ? '/' + rel.split('/').slice(1).join('/') : '/' + rel);
    assert.deepEqual(r.files_created, [abs('docs/new.md')]);
    assert.deepEqual(r.files_deleted, [abs('old.txt')]);
    assert.deepEqual(Object.keys(r.lint as object).sort(), [abs('app.txt'), abs('docs/new.md')].sort());
    assert.match(text(r.diff), new RegExp(`^--- a/${abs('app.txt').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\n`));
    c.file('exists.txt', 'keep\n');
    const e = await expectCode(c.patch.handler({ mode: 'patch', patch: patch('*** Add File: exists.txt', '+new') }, ctx), ErrorCode.PATCH_INVALID);
    assert.match(e.message, /exists\.txt: file already exists — use Update File, not Add File$/);
    assert.equal(c.text('exists.txt'), 'keep\n');
  });

  test('following Hermes 0.22 a hunk placed by a similarity strategy carries a note naming the file', async () => {
    const c = cases.make();
    c.file('a.py', 'def compute(x):\n    return x * 2\n');
    const r = await call(c.patch, { mode: 'patch', patch: patch('*** Update File: a.py', '-def compute(x) :', '-    return x*2', '+def compute(y):', '+    return y * 4') });
    assert.match(text(r.note), /^Non-exact match \(strategy: context_aware\) in \/.*\/a\.py\. The edit span was located approximately, not matched to the hunk's literal boundaries/);
  });

  test('following Hermes 0.19: Add File creates the file (and its directory) from the + lines', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    const r = await call(c.patch, { mode: 'patch', patch: patch('*** Add File: docs/new.md', '+# Title', '+', '+body') });
    assert.equal(c.text('docs/new.md'), '# Title\n\nbody');
    // As Hermes: created and deleted files as the headers name them; files_modified resolved.
    assert.deepEqual(r.files_created, ['docs/new.md']);
    assert.deepEqual(r.files_modified, [fs.realpathSync(c.p('docs/new.md'))]);
    assert.deepEqual(r.lint, { 'docs/new.md': { status: 'skipped', message: 'No linter for .md files' } });
    assert.equal(r.diff, '--- /dev/null\n+++ b/docs/new.md\n+# Title\n+\n+body');
  });

  test('following Hermes 0.19: Update File applies hunks with context and an @@ hint', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('app.py', 'def a():\n    return 1\n\ndef b():\n    return 1\n');
    const r = await call(c.patch, { mode: 'patch', patch: patch('*** Update File: app.py', '@@ def b(): @@', ' def b():', '-    return 1', '+    return 2') });
    assert.equal(c.text('app.py'), 'def a():\n    return 1\n\ndef b():\n    return 2\n');
    assert.match(text(r.diff), /^--- a\/app\.py\n\+\+\+ b\/app\.py\n/);
    assert.deepEqual(r.files_modified, [c.p('app.py')]);
  });

  test('an empty line inside a hunk is an empty context line', async () => {
    const c = cases.make();
    c.file('m.py', 'import os\n\nx = 1\n');
    await call(c.patch, { mode: 'patch', patch: patch('*** Update File: m.py', ' import os', '', '-x = 1', '+x = 2', '') });
    assert.equal(c.text('m.py'), 'import os\n\nx = 2\n');
  });

  test('an addition-only hunk goes after its context hint', async () => {
    const c = cases.make();
    c.file('list.txt', 'alpha\nbeta\ngamma\n');
    await call(c.patch, { mode: 'patch', patch: patch('*** Update File: list.txt', '@@ beta @@', '+beta-2') });
    assert.equal(c.text('list.txt'), 'alpha\nbeta\nbeta-2\ngamma\n');
  });

  test('following Hermes 0.19: Delete File removes the file', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('old.txt', 'bye\n');
    const r = await call(c.patch, { mode: 'patch', patch: patch('*** Delete File: old.txt') });
    assert.equal(fs.existsSync(c.p('old.txt')), false);
    assert.deepEqual(r.files_deleted, ['old.txt']);
    assert.equal('lint' in r, false, 'a deleted file is not linted');
    assert.match(text(r.diff), /^--- a\/old\.txt\n\+\+\+ \/dev\/null\n@@ -1(,1)? \+0,0 @@\n-bye\n/);
  });

  test('following Hermes 0.19: Move File renames, keeping bytes and mode', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    const src = c.file('a.sh', '\ufeffecho hi\r\n');
    fs.chmodSync(src, 0o754);
    const r = await call(c.patch, { mode: 'patch', patch: patch('*** Move File: a.sh -> bin/b.sh') });
    assert.equal(fs.existsSync(src), false);
    assert.equal(fs.readFileSync(c.p('bin/b.sh'), 'utf8'), '\ufeffecho hi\r\n');
    assert.equal(fs.statSync(c.p('bin/b.sh')).mode & 0o777, 0o754);
    assert.match(text(r.diff), /# Moved: a\.sh -> bin\/b\.sh/);
    assert.deepEqual(r.files_modified, [c.p('a.sh'), c.p('bin/b.sh')]);
  });

  test('later operations see earlier ones (update a file moved in the same patch)', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo\n');
    await call(c.patch, { mode: 'patch', patch: patch('*** Move File: a.txt -> b.txt', '*** Update File: b.txt', ' one', '-two', '+2') });
    assert.equal(c.text('b.txt'), 'one\n2\n');
    assert.equal(fs.existsSync(c.p('a.txt')), false);
  });

  test('following Hermes 0.19: one bad hunk means nothing is written', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('a.txt', 'keep me\n');
    c.file('b.txt', 'something else\n');
    const e = await expectCode(
      c.patch.handler(
        {
          mode: 'patch',
          patch: patch('*** Update File: a.txt', '-keep me', '+changed', '*** Add File: c.txt', '+new', '*** Update File: b.txt', '-this line is not there', '+x'),
        },
        ctx,
      ),
      ErrorCode.PATCH_NO_MATCH,
    );
    assert.match(e.message, /^Patch validation failed \(no files were modified\):\n {2}• b\.txt: hunk 1 \(no hint\) not found — Could not find/);
    assert.equal(c.text('a.txt'), 'keep me\n');
    assert.equal(fs.existsSync(c.p('c.txt')), false);
  });

  test('following Hermes 0.19: Add File over an existing file replaces it, keeping its CRLF line endings (as Hermes)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('a.txt', 'original\r\nline\r\n');
    const r = await call(c.patch, { mode: 'patch', patch: patch('*** Add File: a.txt', '+replacement', '+second') });
    assert.equal(c.text('a.txt'), 'replacement\r\nsecond');
    assert.deepEqual(r.files_created, ['a.txt']);
  });

  test("paths with '..' are rejected before anything happens", async () => {
    const c = cases.make();
    const e = await expectCode(c.patch.handler({ mode: 'patch', patch: patch('*** Add File: ../escape.txt', '+x') }, ctx), ErrorCode.PATCH_INVALID);
    assert.match(e.message, /'\.\.' traversal/);
    assert.equal(fs.existsSync(c.p('../escape.txt')), false);
    await expectCode(c.patch.handler({ mode: 'patch', patch: patch('*** Move File: ok.txt -> sub/../../x.txt') }, ctx), ErrorCode.PATCH_INVALID);
  });

  test('every header path passes the sensitive-path check', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    c.file('a.txt', 'x\n');
    await expectCode(c.patch.handler({ mode: 'patch', patch: patch('*** Move File: a.txt -> /etc/cron.d/evil') }, ctx), ErrorCode.FILE_BLOCKED);
    await expectCode(c.patch.handler({ mode: 'patch', patch: patch(`*** Add File: ${c.p('~/auth.json')}`, '+{}') }, ctx), ErrorCode.FILE_BLOCKED);
    assert.equal(c.text('a.txt'), 'x\n');
  });

  test('a write failure restores everything already written', async () => {
    const c = cases.make();
    c.file('a.txt', 'original\n');
    c.file('blocker', 'a regular file where a directory is needed\n');
    const e = await expectCode(
      c.patch.handler({ mode: 'patch', patch: patch('*** Update File: a.txt', '-original', '+changed', '*** Add File: blocker/new.txt', '+x') }, ctx),
      ErrorCode.FILE_WRITE_FAILED,
    );
    assert.match(e.message, /restored/);
    assert.equal(c.text('a.txt'), 'original\n');
    assert.deepEqual(fs.readdirSync(c.proj).sort(), ['a.txt', 'blocker']);
  });

  test('Delete File of a binary file is refused with the reason', async () => {
    const c = cases.make();
    c.file('blob.bin2', Buffer.from([1, 0, 2]));
    const e = await expectCode(c.patch.handler({ mode: 'patch', patch: patch('*** Delete File: blob.bin2') }, ctx), ErrorCode.PATCH_INVALID);
    assert.match(e.message, /blob\.bin2: cannot delete — Binary file/);
    assert.ok(fs.existsSync(c.p('blob.bin2')));
  });

  test('a patch with only context lines is refused', async () => {
    const c = cases.make();
    c.file('a.txt', 'x\n');
    const e = await expectCode(c.patch.handler({ mode: 'patch', patch: patch('*** Update File: a.txt', ' x') }, ctx), ErrorCode.PATCH_INVALID);
    assert.match(e.message, /contains no changes/);
  });

  test('mode patch without patch content is an argument error', async () => {
    const c = cases.make();
    await expectCode(c.patch.handler({ mode: 'patch' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  });
});
