import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { Cases, call, ctx, expectCode, text } from './fixture.js';

const cases = new Cases();
after(() => cases.cleanup());

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

describe('read_file: content and pagination', () => {
  test('returns the N|line gutter with total_lines, file_size and truncated', async () => {
    const c = cases.make();
    c.file('a.txt', 'alpha\nbeta\n');
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(r.content, '1|alpha\n2|beta');
    assert.equal(r.total_lines, 2);
    assert.equal(r.file_size, 11);
    assert.equal(r.truncated, false);
    assert.equal(r.hint, undefined);
  });

  test('offset and limit select a window and the hint names the next offset', async () => {
    const c = cases.make();
    c.file('a.txt', lines(10));
    const r = await call(c.read, { path: 'a.txt', offset: 3, limit: 4 });
    assert.equal(r.content, '3|line 3\n4|line 4\n5|line 5\n6|line 6');
    assert.equal(r.truncated, true);
    assert.equal(r.hint, 'Use offset=7 to continue reading (showing 3-6 of 10 lines)');
  });

  test('the default limit is 500 lines', async () => {
    const c = cases.make();
    c.file('a.txt', lines(600));
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(text(r.content).split('\n').length, 500);
    assert.ok(text(r.content).endsWith('500|line 500'));
    assert.equal(r.truncated, true);
  });

  test('a limit above 2000 is clamped to 2000 for direct callers', async () => {
    const c = cases.make();
    c.file('a.txt', lines(2500, () => 'x'));
    const r = await call(c.read, { path: 'a.txt', limit: 5000 });
    assert.equal(text(r.content).split('\n').length, 2000);
    assert.equal(r.hint, 'Use offset=2001 to continue reading (showing 1-2000 of 2500 lines)');
  });

  test('a final line without a newline is a line', async () => {
    const c = cases.make();
    c.file('a.txt', 'one\ntwo');
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(r.content, '1|one\n2|two');
    assert.equal(r.total_lines, 2);
  });

  test('lines longer than 2000 characters are cut with "... [truncated]"', async () => {
    const c = cases.make();
    c.file('a.txt', 'y'.repeat(2500) + '\nshort\n');
    const r = await call(c.read, { path: 'a.txt' });
    assert.equal(r.content, `1|${'y'.repeat(2000)}... [truncated]\n2|short`);
  });

  test('formatted content over 100,000 characters is refused with total_lines and file_size', async () => {
    const c = cases.make();
    c.file('big.txt', lines(60, () => 'z'.repeat(1990)));
    const e = await expectCode(c.read.handler({ path: 'big.txt' }, ctx), ErrorCode.FILE_TOO_LARGE);
    assert.match(e.message, /exceeds the safety limit \(100,000 chars\)/);
    assert.match(e.message, /Use offset and limit/);
    assert.equal(e.details?.total_lines, 60);
    assert.equal(e.details?.file_size, 60 * 1991);
    // The same file is readable in a narrower window.
    const r = await call(c.read, { path: 'big.txt', limit: 10 });
    assert.equal(r.truncated, true);
  });

  test('an offset past the end returns empty content and says so', async () => {
    const c = cases.make();
    c.file('a.txt', lines(3));
    const r = await call(c.read, { path: 'a.txt', offset: 9 });
    assert.equal(r.content, '');
    assert.match(text(r.hint), /offset 9 is beyond the end of the file \(3 lines total\)/);
  });

  test('an empty file is reported as empty', async () => {
    const c = cases.make();
    c.file('e.txt', '');
    const r = await call(c.read, { path: 'e.txt' });
    assert.equal(r.content, '');
    assert.equal(r.total_lines, 0);
    assert.equal(r.hint, 'File is empty (0 bytes).');
  });

  test('a UTF-8 BOM is not shown', async () => {
    const c = cases.make();
    c.file('bom.txt', '\ufeffhello\n');
    const r = await call(c.read, { path: 'bom.txt' });
    assert.equal(r.content, '1|hello');
  });

  test('secrets in content are redacted', async () => {
    const c = cases.make();
    const key = 'sk-' + 'A1b2C3d4E5f6G7h8I9j0K1l2';
    c.file('cfg.py', `client = make("${key}")\n`);
    const r = await call(c.read, { path: 'cfg.py' });
    assert.ok(!text(r.content).includes(key));
    assert.match(text(r.content), /^1\|client = make\(/);
  });
});

describe('read_file: path resolution', () => {
  test("relative paths resolve against the owner's cwd (cwdFor gets the owner id)", async () => {
    const c = cases.make();
    c.file('sub/a.txt', 'x\n');
    await call(c.read, { path: 'sub/a.txt' });
    assert.deepEqual(c.owners, ['request:t']);
  });

  test('~ expands to the home directory', async () => {
    const c = cases.make();
    c.file('h.txt', 'home file\n');
    const saved = process.env.HOME;
    process.env.HOME = c.proj;
    try {
      const r = await call(c.read, { path: '~/h.txt' });
      assert.equal(r.content, '1|home file');
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe('read_file: refusals', () => {
  test('a missing file suggests similar names from the same directory', async () => {
    const c = cases.make();
    c.file('config.yaml', 'a: 1\n');
    c.file('unrelated.md', 'x\n');
    const e = await expectCode(c.read.handler({ path: 'config.yml' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(e.message, 'File not found: config.yml');
    assert.deepEqual(e.details?.similar_files, ['config.yaml']);
  });

  test('a near-miss spelling is suggested too', async () => {
    const c = cases.make();
    c.file('docs/AGENTS.md', 'x\n');
    const e = await expectCode(c.read.handler({ path: 'docs/AGENT.md' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.deepEqual(e.details?.similar_files, ['docs/AGENTS.md']);
  });

  test('files with NUL bytes are refused as binary with their type', async () => {
    const c = cases.make();
    c.file('blob', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
    const e = await expectCode(c.read.handler({ path: 'blob' }, ctx), ErrorCode.FILE_BINARY);
    assert.match(e.message, /^Binary file \(ELF executable, 8 bytes\) — cannot display as text\.$/);
  });

  test('invalid UTF-8 is refused as binary', async () => {
    const c = cases.make();
    c.file('latin1.txt', Buffer.from([0x61, 0xe9, 0x62, 0x63, 0x0a, 0x64]));
    await expectCode(c.read.handler({ path: 'latin1.txt' }, ctx), ErrorCode.FILE_BINARY);
  });

  // The pointer to vision_analyze comes only with Hermes' tool server serving it (tests/hermes-tools/descriptions).
  test('images are refused by extension; without vision_analyze catalogued, terminal is the pointer', async () => {
    const c = cases.make();
    c.file('pic.png', 'not really a png');
    const e = await expectCode(c.read.handler({ path: 'pic.png' }, ctx), ErrorCode.FILE_BINARY);
    assert.match(e.message, /Cannot read binary file 'pic.png' \(\.png\)\. Use terminal to inspect binary files\.$/);
    assert.equal(e.details?.is_image, true);
  });

  test('device paths are refused without reading them', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    const e = await expectCode(c.read.handler({ path: '/dev/zero' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /device file that would block or produce infinite output/);
  });

  test('a symlink to a device is refused as a device', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    fs.symlinkSync('/dev/urandom', c.p('rand'));
    await expectCode(c.read.handler({ path: 'rand' }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('/proc/<pid>/environ is refused', async () => {
    const c = cases.make({ access: 'hermes' }); // outside any root: Hermes' own deny list, unconfined
    await expectCode(c.read.handler({ path: `/proc/${process.pid}/environ` }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('a directory is not a regular file', async () => {
    const c = cases.make();
    fs.mkdirSync(c.p('dir'));
    await expectCode(c.read.handler({ path: 'dir' }, ctx), ErrorCode.FILE_NOT_REGULAR);
  });

  test('a FIFO is refused without blocking', async () => {
    const c = cases.make();
    execFileSync('mkfifo', [c.p('pipe')]);
    await expectCode(c.read.handler({ path: 'pipe' }, ctx), ErrorCode.FILE_NOT_REGULAR);
  });

  test('$HERMES_HOME/auth.json is a blocked credential store', async () => {
    const c = cases.make();
    c.file('~/auth.json', '{"token": "x"}\n');
    const e = await expectCode(c.read.handler({ path: c.p('~/auth.json') }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /is a Hermes credential store/);
  });

  test('$HERMES_HOME/.env is blocked, also through a symlink', async () => {
    const c = cases.make();
    c.file('~/.env', 'OPENAI_API_KEY=x\n');
    fs.symlinkSync(c.p('~/.env'), c.p('innocent.txt'));
    await expectCode(c.read.handler({ path: c.p('~/.env') }, ctx), ErrorCode.FILE_BLOCKED);
    await expectCode(c.read.handler({ path: 'innocent.txt' }, ctx), ErrorCode.FILE_BLOCKED);
  });

  test('project .env files are blocked but .env.example is readable', async () => {
    const c = cases.make();
    c.file('.env.local', 'DB_PASSWORD=x\n');
    c.file('.env.example', 'DB_PASSWORD=\n');
    const e = await expectCode(c.read.handler({ path: '.env.local' }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /secret-bearing environment file/);
    const r = await call(c.read, { path: '.env.example' });
    assert.equal(r.content, '1|DB_PASSWORD=');
  });

  test('the skills hub cache is blocked', async () => {
    const c = cases.make();
    c.file('~/skills/.hub/index-cache/x.json', '{}\n');
    const e = await expectCode(c.read.handler({ path: c.p('~/skills/.hub/index-cache/x.json') }, ctx), ErrorCode.FILE_BLOCKED);
    assert.match(e.message, /internal Hermes cache file/);
  });

  test('credential files of the Hermes root are blocked when running under a profile', async () => {
    const c = cases.make({ homeRel: 'hermes/profiles/work' });
    const rootAuth = c.file('../hermes/auth.json', '{}\n');
    await expectCode(c.read.handler({ path: rootAuth }, ctx), ErrorCode.FILE_BLOCKED);
  });
});
