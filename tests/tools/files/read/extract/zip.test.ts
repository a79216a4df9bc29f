import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExtractionError } from '../../../../../supervisor/tools/files/read/extract/text.js';
import { MAX_MEMBER_BYTES, Zip } from '../../../../../supervisor/tools/files/read/extract/zip.js';
import { zip } from '../../../../helpers/zip.js';

async function opened(bytes: Buffer, kind = 'DOCX'): Promise<Zip> {
  return Zip.open(bytes, kind);
}

async function refused(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => assert.fail('expected an ExtractionError'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ExtractionError, String(e));
  return e.message;
}

test('members by name, deflated or stored, read back whole', async () => {
  const z = await opened(zip([{ name: 'a.txt', data: Buffer.from('alpha') }, { name: 'dir/b.bin', data: Buffer.from([0, 1, 2]), stored: true }]));
  try {
    assert.deepEqual([...z.entries.keys()], ['a.txt', 'dir/b.bin']);
    assert.equal((await z.read('a.txt')).toString(), 'alpha');
    assert.deepEqual([...(await z.read('dir/b.bin'))], [0, 1, 2]);
    assert.equal(await refused(z.read('nope.xml')), 'Missing nope.xml');
  } finally {
    z.close();
  }
});

test("what is no archive is zipfile's 'File is not a zip file', named by kind", async () => {
  assert.equal(await refused(opened(Buffer.from('plain text, no archive'), 'XLSX')), 'Not a valid XLSX: File is not a zip file');
  assert.equal(await refused(opened(Buffer.alloc(0))), 'Not a valid DOCX: File is not a zip file');
});

test('an archive with bytes before or after it is found where zipfile finds it', async () => {
  const inner = zip([{ name: 'x', data: Buffer.from('inside') }]);
  for (const bytes of [Buffer.concat([Buffer.from('#!prefix\n'), inner]), Buffer.concat([inner, Buffer.from('trailer')])]) {
    const z = await opened(bytes);
    try {
      assert.equal((await z.read('x')).toString(), 'inside');
    } finally {
      z.close();
    }
  }
});

test('a member declared past the cap is refused before it is inflated', async () => {
  const z = await opened(zip([{ name: 'bomb', data: Buffer.from('tiny'), declaredSize: MAX_MEMBER_BYTES + 1 }]));
  try {
    assert.equal(await refused(z.read('bomb')), `Member bomb would inflate to ${MAX_MEMBER_BYTES + 1} bytes, over ${MAX_MEMBER_BYTES}`);
  } finally {
    z.close();
  }
});

test('a member inflating past its declared size, or with a wrong CRC-32, is a bad CRC as zipfile says it', async () => {
  const z = await opened(
    zip([
      { name: 'lies', data: Buffer.alloc(4096, 0x61), declaredSize: 10 },
      { name: "it's", data: Buffer.from('x'), crc: 12345 },
    ]),
    'XLSX',
  );
  try {
    assert.equal(await refused(z.read('lies')), "Not a valid XLSX: Bad CRC-32 for file 'lies'");
    assert.equal(await refused(z.read("it's")), 'Not a valid XLSX: Bad CRC-32 for file "it\'s"');
  } finally {
    z.close();
  }
});
