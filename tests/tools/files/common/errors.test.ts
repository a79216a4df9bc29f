import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { isNotFound, notFoundError, notRegularError, readFailed, throwIfAborted } from '../../../../supervisor/tools/files/common/errors.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: failed`), { code });

test('throwIfAborted: CANCELLED naming the operation, only once aborted', () => {
  const ctl = new AbortController();
  throwIfAborted(undefined, 'x');
  throwIfAborted(ctl.signal, 'x');
  ctl.abort();
  assert.throws(() => throwIfAborted(ctl.signal, 'search_files'), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.CANCELLED && e.message === 'search_files cancelled');
});

test('isNotFound: ENOENT and ENOTDIR', () => {
  assert.equal(isNotFound(errno('ENOENT')), true);
  assert.equal(isNotFound(errno('ENOTDIR')), true);
  assert.equal(isNotFound(errno('EACCES')), false);
  assert.equal(isNotFound(null), false);
});

test('readFailed: permission is FILE_BLOCKED, anything else INTERNAL_ERROR with its errno', () => {
  const denied = readFailed('a.txt', errno('EACCES'));
  assert.equal(denied.code, ErrorCode.FILE_BLOCKED);
  assert.equal(denied.message, "Cannot read 'a.txt': permission denied.");
  assert.deepEqual(denied.details, { reason: 'permission', errno: 'EACCES' });
  const io = readFailed('a.txt', errno('EIO'));
  assert.equal(io.code, ErrorCode.INTERNAL_ERROR);
  assert.equal(io.message, 'Failed to read file: a.txt: EIO: failed');
  assert.deepEqual(io.details, { errno: 'EIO' });
  assert.equal(readFailed('a.txt', new Error('odd')).details, undefined);
});

test('notRegularError: FILE_NOT_REGULAR', () => {
  assert.equal(notRegularError('d').code, ErrorCode.FILE_NOT_REGULAR);
  assert.ok(notRegularError('d').message.startsWith("Cannot read 'd': not a regular file"));
});

test('notFoundError: FILE_NOT_FOUND with up to five similar names, best first, dot-files left out', async () => {
  const dir = temp.make('errors-');
  for (const name of ['config.yaml', 'config.json', 'configuration.txt', 'other.md', '.config.yml', 'confgi.yml']) writeFileSync(join(dir, name), '');
  const e = await notFoundError('config.yml', join(dir, 'config.yml'), {}, ' (looked in roots)');
  assert.equal(e.code, ErrorCode.FILE_NOT_FOUND);
  assert.equal(e.message, 'File not found: config.yml (looked in roots)');
  // same stem (90) before a shared-letters name with the same extension (30)
  assert.deepEqual(e.details?.similar_files, ['config.json', 'config.yaml', 'confgi.yml']);
  // shown under the directory the input named
  const sub = await notFoundError(join('sub', 'confgi.txt'), join(dir, 'confgi.txt'));
  assert.deepEqual(sub.details?.similar_files, [join('sub', 'confgi.yml'), join('sub', 'configuration.txt')]);
});

test('notFoundError: a near-miss spelling scores only when the Hermes followed does that', async () => {
  const dir = temp.make('errors-');
  writeFileSync(join(dir, 'Makefile'), '');
  assert.deepEqual((await notFoundError('Makefiel', join(dir, 'Makefiel'))).details?.similar_files, []);
  assert.deepEqual((await notFoundError('Makefiel', join(dir, 'Makefiel'), { nearMiss: true })).details?.similar_files, ['Makefile']);
});
