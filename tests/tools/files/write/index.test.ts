import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../../shared/errors.js';
import { looksLikeReadFileOutput } from '../../../../supervisor/tools/files/write/index.js';
import { Cases, call, ctx, expectCode } from '../fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

describe('write_file: writing', () => {
  test('creates parent directories and reports the Hermes result shape', async () => {
    const c = cases.make();
    const r = await call(c.write, { path: 'deep/er/new.txt', content: 'héllo\n' });
    const abs = join(c.proj, 'deep/er/new.txt');
    // Hermes 0.22 reads back what it wrote: verified.
    assert.deepEqual(r, {
      bytes_written: 7,
      dirs_created: true,
      verified: true,
      lint: { status: 'skipped', message: 'No linter for .txt files' },
      resolved_path: abs,
      files_modified: [abs],
    });
    assert.equal(fs.readFileSync(abs, 'utf8'), 'héllo\n');
  });

  test('following Hermes 0.19 the result has no verified field', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    const r = await call(c.write, { path: 'new.txt', content: 'x\n' });
    const abs = join(c.proj, 'new.txt');
    assert.deepEqual(r, { bytes_written: 2, dirs_created: false, lint: { status: 'skipped', message: 'No linter for .txt files' }, resolved_path: abs, files_modified: [abs] });
  });

  test('dirs_created is false when the parent already exists', async () => {
    const c = cases.make();
    const r = await call(c.write, { path: 'a.txt', content: 'x' });
    assert.equal(r.dirs_created, false);
  });

  test('an existing file keeps its permission bits', async () => {
    const c = cases.make();
    const path = c.file('run.sh', 'old\n');
    fs.chmodSync(path, 0o750);
    await call(c.read, { path: 'run.sh' }); // an existing file is read before it is overwritten (Hermes 0.20.6)
    await call(c.write, { path: 'run.sh', content: '#!/bin/sh\necho new\n' });
    assert.equal(fs.statSync(path).mode & 0o777, 0o750);
    assert.equal(c.text('run.sh'), '#!/bin/sh\necho new\n');
  });

  test('the file is replaced by rename (a reader of the old file keeps the old content) and no temp file remains', async () => {
    const c = cases.make();
    const path = c.file('doc.txt', 'old content\n');
    await call(c.read, { path: 'doc.txt' });
    const fd = fs.openSync(path, 'r');
    try {
      await call(c.write, { path: 'doc.txt', content: 'new content\n' });
      assert.equal(fs.readFileSync(fd, 'utf8'), 'old content\n');
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(c.text('doc.txt'), 'new content\n');
    assert.deepEqual(fs.readdirSync(c.proj), ['doc.txt']);
  });

  test('an existing CRLF file stays CRLF and keeps its BOM', async () => {
    const c = cases.make();
    c.file('win.txt', '\ufeffa\r\nb\r\n');
    await call(c.read, { path: 'win.txt' });
    await call(c.write, { path: 'win.txt', content: 'x\ny\n' });
    assert.equal(c.text('win.txt'), '\ufeffx\r\ny\r\n');
  });

  test('a symlink is written through to its target', async () => {
    const c = cases.make();
    const target = c.file('real.txt', 'old\n');
    fs.symlinkSync(target, c.p('link.txt'));
    await call(c.read, { path: 'link.txt' });
    const r = await call(c.write, { path: 'link.txt', content: 'new\n' });
    assert.ok(fs.lstatSync(c.p('link.txt')).isSymbolicLink());
    assert.equal(c.text('real.txt'), 'new\n');
    assert.equal(r.resolved_path, fs.realpathSync(target));
  });

  test('a directory at the target path is refused and left alone', async () => {
    const c = cases.make();
    fs.mkdirSync(c.p('dir'));
    await expectCode(c.write.handler({ path: 'dir', content: 'x' }, ctx), ErrorCode.FILE_NOT_REGULAR);
    assert.ok(fs.statSync(c.p('dir')).isDirectory());
  });

  test('missing content is an argument error', async () => {
    const c = cases.make();
    await expectCode(c.write.handler({ path: 'a.txt' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.equal(fs.existsSync(c.p('a.txt')), false);
  });

  test('a lone surrogate is refused before anything is written', async () => {
    const c = cases.make();
    await expectCode(c.write.handler({ path: 'a.txt', content: 'bad \ud800 char' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.equal(fs.existsSync(c.p('a.txt')), false);
  });
});

describe('write_file: refusals', () => {
  test('system prefixes are refused', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    const e = await expectCode(c.write.handler({ path: '/etc/hermes-gateway-test.conf', content: 'x' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /^Refusing to write to sensitive system path: \/etc\/hermes-gateway-test\.conf/);
    await expectCode(c.write.handler({ path: '/boot/x', content: 'x' }, ctx), ErrorCode.FILE_BLOCKED);
    await expectCode(c.write.handler({ path: '/usr/lib/systemd/system/x.service', content: 'x' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.equal(fs.existsSync('/etc/hermes-gateway-test.conf'), false);
  });

  test('docker.sock is refused', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    await expectCode(c.write.handler({ path: '/var/run/docker.sock', content: 'x' }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('$HERMES_HOME/config.yaml is refused', async () => {
    const c = cases.make();
    c.file('~/config.yaml', 'approvals: {mode: ask}\n');
    const e = await expectCode(c.write.handler({ path: c.p('~/config.yaml'), content: 'approvals: {mode: off}\n' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /Refusing to write to Hermes config file/);
    assert.equal(c.text('~/config.yaml'), 'approvals: {mode: ask}\n');
  });

  test('$HERMES_HOME/auth.json and $HERMES_HOME/.env are refused', async () => {
    const c = cases.make();
    await expectCode(c.write.handler({ path: c.p('~/auth.json'), content: '{}' }, ctx), ErrorCode.FILE_BLOCKED);
    await expectCode(c.write.handler({ path: c.p('~/.env'), content: 'X=1' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.equal(fs.existsSync(c.p('~/auth.json')), false);
    assert.equal(fs.existsSync(c.p('~/.env')), false);
  });

  test('a symlink pointing at the Hermes config is refused', async () => {
    const c = cases.make();
    c.file('~/config.yaml', 'safe: true\n');
    fs.symlinkSync(c.p('~/config.yaml'), c.p('settings.yaml'));
    await expectCode(c.write.handler({ path: 'settings.yaml', content: 'safe: false\n' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.equal(c.text('~/config.yaml'), 'safe: true\n');
  });

  test("following Hermes 0.22 another profile's skills are written: profiles are not isolated, and cross_profile is still taken", async () => {
    const c = cases.make({ homeRel: 'hermes/profiles/work' });
    const other = join(c.root, 'hermes/skills/demo/SKILL.md');
    await call(c.write, { path: other, content: '---\nname: demo\n---\n' });
    assert.ok(fs.existsSync(other));
    await call(c.write, { path: join(c.root, 'hermes/skills/demo/other.md'), content: 'x\n', cross_profile: true });
    assert.ok(!('cross_profile' in (c.write.inputSchema.properties as Record<string, unknown>)));
  });

  test("following Hermes 0.19 another profile's skills are refused unless cross_profile is set", async () => {
    const c = cases.make({ homeRel: 'hermes/profiles/work', hermes: '0.19.0' });
    const other = join(c.root, 'hermes/skills/demo/SKILL.md');
    const e = await expectCode(c.write.handler({ path: other, content: '---\nname: demo\n---\n' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /Cross-profile write blocked/);
    assert.equal(fs.existsSync(other), false);
    await call(c.write, { path: other, content: '---\nname: demo\n---\n', cross_profile: true });
    assert.ok(fs.existsSync(other));
  });

  test('read_file gutter output is refused as content', async () => {
    const c = cases.make();
    const e = await expectCode(c.write.handler({ path: 'a.py', content: '1|import os\n2|\n3|print(os.getcwd())\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.match(e.message, /read_file display text/);
    assert.equal(fs.existsSync(c.p('a.py')), false);
  });

  test('a sparse literal N| line is not mistaken for gutter output', async () => {
    assert.equal(looksLikeReadFileOutput('1|value\nplain line\nanother\n'), false);
    assert.equal(looksLikeReadFileOutput('  10|a\n  11|b\n  12|c\n'), true);
    assert.equal(looksLikeReadFileOutput('1|a\n5|b\n9|c\n'), false);
  });
});

describe('write_file: syntax checks as Hermes reports them', () => {
  test('JSON/YAML that does not parse is refused before the write, the old file untouched', async () => {
    const c = cases.make();
    c.file('c.json', '{"a": 1}\n');
    await call(c.read, { path: 'c.json' });
    const e = await expectCode(c.write.handler({ path: 'c.json', content: '{"a": 1,}\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.match(e.message, /^Refusing to write '.*c\.json': candidate content fails \.json syntax validation \(JSONDecodeError: .*\)\. The file was NOT created or modified\./);
    assert.deepEqual([e.details?.bytes_written, e.details?.dirs_created], [0, false]);
    assert.equal(c.text('c.json'), '{"a": 1}\n');
    await expectCode(c.write.handler({ path: 'new/c.yml', content: 'a: [1, 2\n' }, ctx), ErrorCode.INVALID_ARGUMENTS);
    assert.equal(fs.existsSync(c.p('new')), false, 'no directory is created for a refused write');
  });

  test('lint: ok for parsed JSON/YAML, "No linter" for other types; Python skipped where no Python can be called', async () => {
    const c = cases.make();
    const lint = async (path: string, content: string) => (await call(c.write, { path, content })).lint;
    assert.deepEqual(await lint('c.json', '{"a": [1, 2]}'), { status: 'ok', output: '' });
    assert.deepEqual(await lint('k.yaml', 'kind: A\n---\nref: !Ref B\na: 1\na: 2\n'), { status: 'ok', output: '' });
    assert.deepEqual(await lint('notes.md', '# x\n'), { status: 'skipped', message: 'No linter for .md files' });
    assert.deepEqual(await lint('Makefile', 'all:\n'), { status: 'skipped', message: 'No linter for  files' });
    assert.deepEqual(await lint('m.py', 'def f(:\n'), { status: 'skipped', message: 'Syntax checks of .py files are not available here' });
  });
});
