import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../../shared/errors.js';
import { Cases, call, ctx, expectCode } from '../fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

describe('patch (replace mode)', () => {
  test('replaces a unique string and returns a unified diff', async () => {
    const c = cases.make();
    const abs = c.file('app.py', 'def main():\n    print("hi")\n    return 0\n');
    const r = await call(c.patch, { mode: 'replace', path: 'app.py', old_string: 'print("hi")', new_string: 'print("hello")' });
    assert.equal(c.text('app.py'), 'def main():\n    print("hello")\n    return 0\n');
    assert.equal(r.success, true);
    // Hermes labels the diff with the absolute path it patched (`a/` + `/abs/path`).
    const real = fs.realpathSync(abs);
    assert.equal(
      r.diff,
      `--- a/${real}\n+++ b/${real}\n@@ -1,3 +1,3 @@\n def main():\n-    print("hi")\n+    print("hello")\n     return 0\n`,
    );
    assert.deepEqual(r.files_modified, [real]);
    // PatchResult.to_dict leaves empty lists out.
    assert.equal('files_created' in r, false);
    assert.equal('files_deleted' in r, false);
    assert.equal(r.resolved_path, real);
    assert.deepEqual(r.lint, { status: 'skipped', message: 'Syntax checks of .py files are not available here' });
  });

  test('mode defaults to replace', async () => {
    const c = cases.make();
    c.file('a.txt', 'one two\n');
    await call(c.patch, { path: 'a.txt', old_string: 'two', new_string: 'three' });
    assert.equal(c.text('a.txt'), 'one three\n');
  });

  test('an empty new_string deletes the match', async () => {
    const c = cases.make();
    c.file('a.txt', 'keep\ndrop me\nkeep too\n');
    await call(c.patch, { path: 'a.txt', old_string: 'drop me\n', new_string: '' });
    assert.equal(c.text('a.txt'), 'keep\nkeep too\n');
  });

  test('a fuzzy (whitespace-tolerant) match is applied', async () => {
    const c = cases.make();
    c.file('a.js', 'if (x) {\n\treturn   1;\n}\n');
    await call(c.patch, { path: 'a.js', old_string: 'return 1;', new_string: 'return 2;' });
    assert.equal(c.text('a.js'), 'if (x) {\n\treturn 2;\n}\n');
  });

  test('no match fails with "Could not find" and a did-you-mean snippet, file untouched', async () => {
    const c = cases.make();
    c.file('a.py', 'def compute(a, b):\n    return a + b\n');
    const e = await expectCode(c.patch.handler({ path: 'a.py', old_string: 'def summarize(x, y, z):\n    pass', new_string: 'x' }, ctx), ErrorCode.PATCH_NO_MATCH);
    assert.match(e.message, /Could not find/);
    assert.match(e.message, /Did you mean one of these sections\?\n {3}1\| def compute\(a, b\):/);
    assert.equal(e.details?.success, false);
    assert.equal(c.text('a.py'), 'def compute(a, b):\n    return a + b\n');
  });

  test('no close line gives the generic _hint instead', async () => {
    const c = cases.make();
    c.file('a.txt', 'zzz\n');
    const e = await expectCode(c.patch.handler({ path: 'a.txt', old_string: 'qqqqqqqq', new_string: 'x' }, ctx), ErrorCode.PATCH_NO_MATCH);
    assert.match(String(e.details?._hint), /Use read_file to verify/);
  });

  test('an ambiguous match is refused and nothing changes', async () => {
    const c = cases.make();
    c.file('a.txt', 'x = 1\ny = 2\nx = 1\n');
    const e = await expectCode(c.patch.handler({ path: 'a.txt', old_string: 'x = 1', new_string: 'x = 5' }, ctx), ErrorCode.PATCH_AMBIGUOUS);
    assert.match(e.message, /Found 2 matches/);
    assert.equal(c.text('a.txt'), 'x = 1\ny = 2\nx = 1\n');
  });

  test('replace_all replaces every occurrence', async () => {
    const c = cases.make();
    c.file('a.txt', 'x = 1\ny = 2\nx = 1\n');
    await call(c.patch, { path: 'a.txt', old_string: 'x = 1', new_string: 'x = 5', replace_all: true });
    assert.equal(c.text('a.txt'), 'x = 5\ny = 2\nx = 5\n');
  });

  test('following Hermes 0.22 a re-sent edit that is already in the file is a success that writes nothing', async () => {
    const c = cases.make();
    const path = c.file('a.txt', 'result = compute_total(items)\n');
    const before = fs.statSync(path).mtimeMs;
    const r = await call(c.patch, { path: 'a.txt', old_string: 'result = 0', new_string: 'result = compute_total(items)' });
    assert.deepEqual(r, {
      success: true,
      no_change: true,
      note: `File already contains the target text — the edit appears to be already applied to ${fs.realpathSync(path)}. No write performed; do not re-send this patch.`,
      files_modified: [fs.realpathSync(path)],
      resolved_path: fs.realpathSync(path),
    });
    assert.equal(fs.statSync(path).mtimeMs, before);
  });

  test('following Hermes 0.22 an ambiguous old_string lists its matches; empty, blank and unchanged ones say what to do', async () => {
    const c = cases.make();
    c.file('a.txt', 'x = 1\ny = 2\nx = 1\n');
    const e = await expectCode(c.patch.handler({ path: 'a.txt', old_string: 'x = 1', new_string: 'x = 3' }, ctx), ErrorCode.PATCH_AMBIGUOUS);
    assert.equal(e.message, 'Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True. Matches:\n  L1: x = 1\n  L3: x = 1');
    assert.match((await expectCode(c.patch.handler({ path: 'a.txt', old_string: '', new_string: 'z' }, ctx), ErrorCode.INVALID_ARGUMENTS)).message, /^old_string is empty — nothing to match\./);
    assert.match((await expectCode(c.patch.handler({ path: 'a.txt', old_string: '  ', new_string: 'z' }, ctx), ErrorCode.INVALID_ARGUMENTS)).message, /^old_string is only whitespace/);
    assert.match((await expectCode(c.patch.handler({ path: 'a.txt', old_string: 'y = 2', new_string: 'y = 2' }, ctx), ErrorCode.INVALID_ARGUMENTS)).message, /^No edit was applied because old_string and new_string are identical\./);
  });

  test('following Hermes 0.19 a re-sent edit whose old_string is gone fails as in Hermes, file untouched', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('a.txt', 'result = compute_total(items)\n');
    const before = fs.statSync(c.p('a.txt')).mtimeMs;
    const e = await expectCode(c.patch.handler({ path: 'a.txt', old_string: 'result = 0', new_string: 'result = compute_total(items)' }, ctx), ErrorCode.PATCH_NO_MATCH);
    assert.match(e.message, /^Could not find a match for old_string in the file/);
    assert.equal(fs.statSync(c.p('a.txt')).mtimeMs, before);
  });

  test('replace-mode requirements are enforced by the handler', async () => {
    const c = cases.make();
    c.file('a.txt', 'x\n');
    const e1 = await expectCode(c.patch.handler({ mode: 'replace', old_string: 'x', new_string: 'y' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.equal(e1.message, 'path required');
    const e2 = await expectCode(c.patch.handler({ mode: 'replace', path: 'a.txt', old_string: 'x' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.equal(e2.message, 'old_string and new_string required');
    await expectCode(c.patch.handler({ mode: 'replace', path: 'a.txt', old_string: 'x', new_string: 'x' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    await expectCode(c.patch.handler({ mode: 'sed', path: 'a.txt' }, ctx), ErrorCode.INVALID_ARGUMENTS);
  });

  test('a missing file is FILE_NOT_FOUND in Hermes\' words', async () => {
    const c = cases.make();
    c.file('main.py', 'x\n');
    const e = await expectCode(c.patch.handler({ path: 'main.pyy', old_string: 'x', new_string: 'y' }, ctx), ErrorCode.FILE_NOT_FOUND);
    // Hermes' words (the resolved path), then the roots the file tools reach.
    assert.equal(e.message, `Failed to read file: ${fs.realpathSync(c.p('.'))}/main.pyy (project roots: ${c.root})`);
    assert.equal(e.details?.success, false);
  });

  test('CRLF files stay CRLF and a BOM survives', async () => {
    const c = cases.make();
    c.file('w.txt', '\ufeffone\r\ntwo\r\nthree\r\n');
    await call(c.patch, { path: 'w.txt', old_string: 'two\nthree', new_string: 'TWO\nTHREE\nFOUR' });
    assert.equal(c.text('w.txt'), '\ufeffone\r\nTWO\r\nTHREE\r\nFOUR\r\n');
  });

  test('sensitive targets are refused before reading', async () => {
    const c = cases.make();
    c.file('~/config.yaml', 'approvals:\n  mode: ask\n');
    await expectCode(c.patch.handler({ path: c.p('~/config.yaml'), old_string: 'mode: ask', new_string: 'mode: off' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.equal(c.text('~/config.yaml'), 'approvals:\n  mode: ask\n');
  });

  test('binary files are not patched', async () => {
    const c = cases.make();
    c.file('b.dat2', Buffer.from([0x61, 0, 0x62]));
    await expectCode(c.patch.handler({ path: 'b.dat2', old_string: 'a', new_string: 'b' }, ctx), ErrorCode.FILE_BINARY);
  });

  test('an existing file keeps its mode', async () => {
    const c = cases.make();
    const abs = c.file('tool.sh', 'echo a\n');
    fs.chmodSync(abs, 0o755);
    await call(c.patch, { path: 'tool.sh', old_string: 'echo a', new_string: 'echo b' });
    assert.equal(fs.statSync(abs).mode & 0o777, 0o755);
  });
});
