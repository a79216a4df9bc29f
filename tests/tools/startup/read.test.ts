import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { readStartupContext, type StartupConfig } from '../../../supervisor/tools/startup/read.js';
import { ALL, expectCode, fixtures } from './fixture.js';

const fixture = fixtures();

describe('the startup files read', () => {
  test('a missing optional file is reported present:false without content', async () => {
    const { 'memories/USER.md': _omit, ...rest } = ALL;
    const f = fixture(rest);
    const result = await readStartupContext(f.config);
    const user = result.files.find((x) => x.name === 'USER.md')!;
    assert.deepEqual(user, { name: 'USER.md', path: join(f.home, 'memories', 'USER.md'), present: false });
    assert.equal(result.files.filter((x) => x.present).length, 3);
  });

  test('a missing SOUL.md fails with STARTUP_FILE_MISSING naming the path', async () => {
    const { 'SOUL.md': _omit, ...rest } = ALL;
    const f = fixture(rest);
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_MISSING);
    assert.match(e.message, new RegExp(join(f.home, 'SOUL.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });

  test('a symlinked startup file is refused', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n', 'elsewhere.md': 'secret stuff\n' });
    fs.mkdirSync(join(f.home, 'memories'));
    fs.symlinkSync(join(f.home, 'elsewhere.md'), join(f.home, 'memories', 'MEMORY.md'));
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_SYMLINK);
    assert.match(e.message, /MEMORY\.md/);
  });

  test('a symlinked memories directory is refused', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n', 'real-memories/MEMORY.md': 'm\n' });
    fs.symlinkSync(join(f.home, 'real-memories'), join(f.home, 'memories'));
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_SYMLINK);
    assert.match(e.message, /memories/);
  });

  test('a FIFO is refused as not a regular file (without blocking on open)', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    fs.mkdirSync(join(f.home, 'memories'));
    const fifo = join(f.home, 'memories', 'USER.md');
    execFileSync('mkfifo', [fifo]);
    const call = expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_NOT_REGULAR);
    let timer: NodeJS.Timeout | undefined;
    const blocked = new Promise<'blocked'>((resolve) => {
      timer = setTimeout(() => resolve('blocked'), 3000);
    });
    const outcome = await Promise.race([call, blocked]);
    clearTimeout(timer);
    if (outcome === 'blocked') {
      // Release the reader stuck in open() so the process can exit, then fail.
      try {
        fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // no reader was waiting
      }
      await call.catch(() => undefined);
      assert.fail('open() of a FIFO blocked: it must be opened with O_NONBLOCK');
    }
    assert.match(outcome.message, /USER\.md/);
  });

  test('a startup file that cannot be opened for another reason is STARTUP_FILE_UNREADABLE, with the cause', async () => {
    // ENAMETOOLONG: fails open() even for root, unlike a chmod 000 file.
    const f = fixture({ 'SOUL.md': 'soul\n' });
    const project = join(f.project, 'p'.repeat(300));
    const config: StartupConfig = { ...f.config, projectDir: project };
    const e = await expectCode(readStartupContext(config), ErrorCode.STARTUP_FILE_UNREADABLE);
    assert.match(e.message, /\.hermes\.md/);
    assert.match(e.message, /ENAMETOOLONG/);
  });

  test('a memories directory that cannot be inspected is STARTUP_FILE_UNREADABLE', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    const config: StartupConfig = { ...f.config, hermesHome: join(f.home, 'h'.repeat(300)) };
    const e = await expectCode(readStartupContext(config), ErrorCode.STARTUP_FILE_UNREADABLE);
    assert.match(e.message, /memories/);
    assert.match(e.message, /ENAMETOOLONG/);
  });

  test('a directory in place of a file is refused as not regular', async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    fs.mkdirSync(join(f.project, '.hermes.md'));
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_NOT_REGULAR);
    assert.match(e.message, /\.hermes\.md/);
  });

  test('an oversized file is refused by its fstat size, citing size and limit', async () => {
    // Invalid UTF-8 too: had any byte been read, the error would not be TOO_LARGE.
    const f = fixture({ 'SOUL.md': 'soul\n', 'memories/MEMORY.md': Buffer.alloc(200, 0xff) }, { startupMaxFileBytes: 100 });
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_TOO_LARGE);
    assert.match(e.message, /MEMORY\.md/);
    assert.match(e.message, /200 bytes/);
    assert.match(e.message, /startupMaxFileBytes=100/);
  });

  test('a 1 GiB sparse file is refused quickly without being read', { timeout: 20000 }, async () => {
    const f = fixture({ 'SOUL.md': 'soul\n' });
    const big = join(f.project, '.hermes.md');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 1024 ** 3);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_TOO_LARGE);
    const elapsed = performance.now() - started;
    assert.match(e.message, /1073741824 bytes/);
    assert.ok(elapsed < 1000, `took ${elapsed} ms`);
    assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024, 'memory grew as if the file was read');
  });

  test('the total size over budget is refused before any content is read', async () => {
    // Each file fits, together they do not; SOUL.md holds invalid UTF-8 to prove nothing was read.
    const f = fixture(
      { 'SOUL.md': Buffer.alloc(60, 0xff), 'memories/MEMORY.md': 'm'.repeat(60) },
      { startupMaxFileBytes: 100, startupMaxTotalBytes: 100 },
    );
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_TOO_LARGE);
    assert.match(e.message, /total 120 bytes/);
    assert.match(e.message, /startupMaxTotalBytes=100/);
    assert.match(e.message, /SOUL\.md 60/);
  });

  test('invalid UTF-8 is refused', async () => {
    const f = fixture({ 'SOUL.md': Buffer.from([0x68, 0x69, 0xc3, 0x28]) });
    const e = await expectCode(readStartupContext(f.config), ErrorCode.STARTUP_FILE_INVALID_UTF8);
    assert.match(e.message, /SOUL\.md/);
  });
});
