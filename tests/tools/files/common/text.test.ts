import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { assertEncodable, detectLineEnding, encodeForExisting, normalizeLineEndings, probeExisting, readRawText } from '../../../../supervisor/tools/files/common/text.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

const hasCode = (code: ErrorCode) => (e: unknown) => e instanceof GatewayError && e.code === code;

test('detectLineEnding: CRLF if any in the first 4 KiB, else LF, else null', () => {
  assert.equal(detectLineEnding('a\nb\r\nc'), '\r\n');
  assert.equal(detectLineEnding('a\nb'), '\n');
  assert.equal(detectLineEnding('one line'), null);
  assert.equal(detectLineEnding('x'.repeat(4096) + '\r\n'), null);
});

test('normalizeLineEndings: CRLF, lone CR and LF all become the target', () => {
  assert.equal(normalizeLineEndings('a\r\nb\rc\n', '\n'), 'a\nb\nc\n');
  assert.equal(normalizeLineEndings('a\r\nb\rc\n', '\r\n'), 'a\r\nb\r\nc\r\n');
});

test('encodeForExisting: an existing CRLF file stays CRLF, an existing BOM is kept', () => {
  assert.equal(encodeForExisting('a\nb\n', null).toString('utf8'), 'a\nb\n');
  assert.equal(encodeForExisting('a\nb\n', Buffer.from('x\r\ny')).toString('utf8'), 'a\r\nb\r\n');
  assert.equal(encodeForExisting('a\n', Buffer.from('\ufeffx\n')).toString('utf8'), '\ufeffa\n');
  assert.equal(encodeForExisting('\ufeffa', Buffer.from('\ufeffx')).toString('utf8'), '\ufeffa'); // not doubled
  assert.equal(encodeForExisting('a\n', Buffer.from('\ufeffx\r\n')).toString('utf8'), '\ufeffa\r\n');
});

test('assertEncodable: a lone surrogate is refused (INVALID_ARGUMENTS), a pair is fine', () => {
  assertEncodable('f.txt', 'ok \ud83d\ude00');
  assert.throws(
    () => assertEncodable('f.txt', 'bad \ud800 x'),
    (e: unknown) =>
      hasCode(ErrorCode.INVALID_ARGUMENTS)(e) &&
      (e as Error).message === "Refusing to write 'f.txt': content contains a lone surrogate character (\\ud800) that cannot be encoded as UTF-8. The file was NOT created or modified.",
  );
  assert.throws(() => assertEncodable('f.txt', '\udc00', 'repr'), (e: unknown) => (e as Error).message.includes("character ('\\udc00')"));
});

test('readRawText: the text without its BOM, the exact bytes, the mode', async () => {
  const dir = temp.make('text-');
  const file = join(dir, 'a.txt');
  writeFileSync(file, '\ufeffhello\r\n', { mode: 0o640 });
  const raw = await readRawText('a.txt', file, 1000);
  assert.equal(raw.content, 'hello\r\n');
  assert.equal(raw.hadBom, true);
  assert.deepEqual(raw.bytes, Buffer.from('\ufeffhello\r\n'));
  assert.equal(raw.mode, 0o640);
  assert.equal(raw.size, 10);
});

test('readRawText refuses a directory, a binary file, an oversized one, a missing one', async () => {
  const dir = temp.make('text-');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'bin.dat'), Buffer.from([0, 1, 2, 0, 3]));
  writeFileSync(join(dir, 'big.txt'), 'x'.repeat(2000));
  await assert.rejects(readRawText('sub', join(dir, 'sub'), 1000), hasCode(ErrorCode.FILE_NOT_REGULAR));
  await assert.rejects(readRawText('bin.dat', join(dir, 'bin.dat'), 1000), (e: unknown) => hasCode(ErrorCode.FILE_BINARY)(e) && (e as GatewayError).details?.is_binary === true);
  await assert.rejects(
    readRawText('big.txt', join(dir, 'big.txt'), 1000),
    (e: unknown) => hasCode(ErrorCode.FILE_TOO_LARGE)(e) && (e as Error).message.startsWith('File is too large (2,000 bytes, limit is 1,000).'),
  );
  await assert.rejects(readRawText('nope.txt', join(dir, 'nope.txt'), 1000), hasCode(ErrorCode.FILE_NOT_FOUND));
});

test('probeExisting: the first 4 KiB and the mode, null when missing or not a file', async () => {
  const dir = temp.make('text-');
  const file = join(dir, 'p.txt');
  writeFileSync(file, 'y'.repeat(5000), { mode: 0o600 });
  const probe = await probeExisting(file);
  assert.equal(probe?.head.length, 4096);
  assert.equal(probe?.mode, 0o600);
  assert.equal(await probeExisting(join(dir, 'missing')), null);
  assert.equal(await probeExisting(dir), null);
});
