import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { containedReal, decodeLenient, FileRefused, readBounded } from '../../../supervisor/tools/skills/io.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

const refusal = (reason: string, size?: number) => (e: unknown) => e instanceof FileRefused && e.reason === reason && e.size === size;

test("readBounded 'whole': the file and its size; over maxBytes refused as too_large with the size, before reading", async () => {
  const dir = temp.make('hmcp-skills-io-');
  writeFileSync(join(dir, 'f'), 'hello');
  assert.deepEqual(await readBounded(join(dir, 'f'), 5, 'whole'), { bytes: Buffer.from('hello'), size: 5 });
  await assert.rejects(readBounded(join(dir, 'f'), 4, 'whole'), refusal('too_large', 5));
  writeFileSync(join(dir, 'empty'), '');
  assert.deepEqual(await readBounded(join(dir, 'empty'), 0, 'whole'), { bytes: Buffer.alloc(0), size: 0 });
});

test("readBounded 'prefix': at most maxBytes, the full size reported", async () => {
  const dir = temp.make('hmcp-skills-io-');
  writeFileSync(join(dir, 'f'), 'hello world');
  assert.deepEqual(await readBounded(join(dir, 'f'), 5, 'prefix'), { bytes: Buffer.from('hello'), size: 11 });
});

test('a final symlink is refused unless followed; a directory or a FIFO is not_regular; a missing file is the fs error', async () => {
  const dir = temp.make('hmcp-skills-io-');
  writeFileSync(join(dir, 'f'), 'data');
  symlinkSync(join(dir, 'f'), join(dir, 'link'));
  await assert.rejects(readBounded(join(dir, 'link'), 10, 'whole'), refusal('symlink'));
  assert.equal((await readBounded(join(dir, 'link'), 10, 'whole', true)).bytes.toString(), 'data');
  mkdirSync(join(dir, 'd'));
  await assert.rejects(readBounded(join(dir, 'd'), 10, 'whole'), refusal('not_regular'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  await assert.rejects(readBounded(join(dir, 'fifo'), 10, 'prefix'), refusal('not_regular'), 'no wait for a writer');
  await assert.rejects(readBounded(join(dir, 'absent'), 10, 'whole'), (e) => (e as NodeJS.ErrnoException).code === 'ENOENT');
});

test('decodeLenient: UTF-8 with invalid bytes replaced, a BOM dropped', () => {
  assert.equal(decodeLenient(Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0xff, 0x62, 0xc3, 0xa9])), 'a\ufffdbé');
});

test('containedReal: the real path when inside the root, null when a symlink leaves it or the path is missing', async () => {
  const base = temp.make('hmcp-skills-io-');
  const root = join(base, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(base, 'outside'), 'x');
  symlinkSync(join(base, 'outside'), join(root, 'out-link'));
  symlinkSync(join(root, 'sub'), join(root, 'in-link'));
  assert.equal(await containedReal(join(root, 'in-link'), root), join(root, 'sub'));
  assert.equal(await containedReal(root, root), root);
  assert.equal(await containedReal(join(root, 'out-link'), root), null);
  assert.equal(await containedReal(join(root, 'absent'), root), null);
});
