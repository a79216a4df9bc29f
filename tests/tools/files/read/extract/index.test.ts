import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { ErrorCode } from '../../../../../shared/errors.js';
import { closeCpuPool, cpuPoolCompleted } from '../../../../../supervisor/platform/thread-pool/pool.js';
import { ExtractionError, MAX_MEMBER_BYTES, renderDocument } from '../../../../../supervisor/tools/files/read/extract/index.js';
import { Cases, call, ctx, expectCode, text } from '../../fixture.js';
import { zip, type Member } from '../../../../helpers/zip.js';

// The document extraction's ZIP and XML reading (yauzl and saxes), held to what Hermes'
// tools/read_extract.py gets from Python's zipfile and ElementTree, its zip-bomb caps, and its
// rendering on the CPU pool. The read_file fidelity suite compares the ordinary documents with Hermes.

const cases = new Cases();
after(async () => {
  cases.cleanup();
  await closeCpuPool();
});

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const documentXml = (body: string, head = '<?xml version="1.0" encoding="UTF-8"?>') => `${head}<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`;
const para = (t: string) => `<w:p><w:r><w:t>${t}</w:t></w:r></w:p>`;
const docx = (xml: string | Buffer, extra: Partial<Member> = {}) => zip([{ name: 'word/document.xml', data: Buffer.isBuffer(xml) ? xml : Buffer.from(xml), ...extra }]);

function workbook(rows: number, cols: number): Buffer {
  const cells = (r: number) => Array.from({ length: cols }, (_, c) => `<c r="${String.fromCharCode(65 + c)}${r}"><v>${r * cols + c}</v></c>`).join('');
  const sheet = `<worksheet xmlns="${S}"><sheetData>${Array.from({ length: rows }, (_, r) => `<row r="${r + 1}">${cells(r + 1)}</row>`).join('')}</sheetData></worksheet>`;
  return zip([
    { name: 'xl/workbook.xml', data: Buffer.from(`<workbook xmlns="${S}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>') },
    { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(sheet) },
  ]);
}

async function refusal(path: string, bytes: Buffer): Promise<string> {
  const e = await renderDocument(path, bytes).then(
    (t) => assert.fail(`rendered: ${JSON.stringify(t.slice(0, 200))}`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ExtractionError, `an ExtractionError, not ${String(e)}`);
  return e.message;
}

describe('read_file documents: zip bombs and damaged archives', () => {
  const bomb = Buffer.alloc(MAX_MEMBER_BYTES + 1024, 0x20); // spaces inside the element: well-formed XML if inflated

  test('a member that says it inflates past 64 MiB is refused before anything is inflated', async () => {
    const xml = Buffer.concat([Buffer.from(`<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>`), bomb, Buffer.from('</w:t></w:r></w:p></w:body></w:document>')]);
    const archive = docx(xml);
    assert.ok(archive.length < 256 * 1024, `a small file (${archive.length} bytes)`);
    const started = performance.now();
    assert.match(await refusal('bomb.docx', archive), /would inflate to \d+ bytes, over 67108864/);
    assert.ok(performance.now() - started < 1000, 'refused from the headers, without inflating');
  });

  // zipfile reads a member to its declared size, whose CRC-32 then does not match: its words.
  test('a member that inflates past the size its headers give is cut off there (a lying zip bomb)', async () => {
    assert.equal(await refusal('liar.docx', docx(bomb, { declaredSize: 4096 })), "Not a valid DOCX: Bad CRC-32 for file 'word/document.xml'");
  });

  test('a member whose CRC-32 does not match is refused, as zipfile refuses it', async () => {
    const xml = documentXml(para('checked'));
    assert.equal(await renderDocument('ok.docx', docx(xml)), 'checked\n');
    assert.match(await refusal('crc.docx', docx(xml, { crc: (crc32(Buffer.from(xml)) ^ 1) >>> 0 })), /^Not a valid DOCX: Bad CRC-32 for file 'word\/document\.xml'$/);
  });

  test('stored members are read, and a missing part or a file that is no archive is refused', async () => {
    assert.equal(await renderDocument('stored.docx', docx(documentXml(para('stored')), { stored: true })), 'stored\n');
    assert.match(await refusal('empty.docx', zip([{ name: 'other.xml', data: Buffer.from('<x/>') }])), /^Missing word\/document\.xml$/);
    assert.equal(await refusal('fake.docx', Buffer.from('plain text pretending to be a document\n')), 'Not a valid DOCX: File is not a zip file');
    assert.match(await refusal('fake.xlsx', Buffer.alloc(0)), /^Not a valid XLSX: /);
  });

  test('an archive with bytes before or after it is read where zipfile finds it', async () => {
    const archive = docx(documentXml(para('inside')));
    assert.equal(await renderDocument('pre.docx', Buffer.concat([Buffer.from('#!/bin/sh prefix\n'), archive])), 'inside\n');
    assert.equal(await renderDocument('post.docx', Buffer.concat([archive, Buffer.from('trailing bytes')])), 'inside\n');
  });

  test('read_file answers a zip bomb as any document that does not render: by its extension, binary (Hermes 0.19)', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('bomb.docx', docx(bomb, { declaredSize: 4096 }));
    const e = await expectCode(c.read.handler({ path: 'bomb.docx' }, ctx), ErrorCode.FILE_BINARY);
    assert.match(e.message, /Cannot read binary file 'bomb\.docx' \(\.docx\)/);
  });

  test('read_file refuses a zip bomb with the reason, as newer Hermes refuses a document it cannot render', async () => {
    const c = cases.make();
    c.file('bomb.docx', docx(bomb, { declaredSize: 4096 }));
    const e = await expectCode(c.read.handler({ path: 'bomb.docx' }, ctx), ErrorCode.FILE_EXTRACTION_FAILED);
    assert.equal(
      e.message,
      "Cannot read 'bomb.docx' (.docx): document extraction failed — Not a valid DOCX: Bad CRC-32 for file 'word/document.xml'. Use terminal utilities to inspect or convert the file.",
    );
  });
});

describe('read_file documents: XML as ElementTree reads it', () => {
  test('line ends normalised, CDATA and character references as text, comments and PIs dropped', async () => {
    const xml = documentXml(
      para('a\r\nb\rc') + para('<![CDATA[<b> & ]]>tail') + para('x<!-- note -->y<?pi z?>z') + para('&amp;&lt;&#x41;&#65;&quot;&apos;&#x1F600;') + '<w:p><w:r><w:t>t</w:t><w:tab/><w:t>u</w:t><w:br/><w:t>v</w:t></w:r></w:p>',
    );
    assert.equal(await renderDocument('x.docx', docx(xml)), 'a\nb\nc\n<b> & tail\nxyz\n&<AA"\'\u{1F600}\nt\tu\nv\n');
  });

  test('namespaces resolve by URI whatever the prefix; xmlns declarations are no attributes', async () => {
    const xml = `<document xmlns="${W}"><body><p><r><t>default</t></r></p><x:p xmlns:x="${W}"><x:r><x:t>other prefix</x:t></x:r></x:p></body></document>`;
    assert.equal(await renderDocument('ns.docx', docx(xml)), 'default\nother prefix\n');
    // A sheet's name is an attribute: its tabs and newlines are spaces (attribute-value normalisation).
    const book = zip([
      { name: 'xl/workbook.xml', data: Buffer.from(`<workbook xmlns="${S}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Tab\tName\nX" sheetId="1" r:id="rId1"/></sheets></workbook>`) },
      { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>') },
      { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(`<worksheet xmlns="${S}"><sheetData><row><c r="A1" t="inlineStr"><is><t>v</t></is></c></row></sheetData></worksheet>`) },
    ]);
    assert.equal(await renderDocument('book.xlsx', book), '# ── Sheet: Tab Name X ──\nv\n');
  });

  test('encodings as expat reads them: a UTF-8 or UTF-16 byte-order mark, a Latin-1 declaration', async () => {
    assert.equal(await renderDocument('bom8.docx', docx(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(documentXml(para('bom')))]))), 'bom\n');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(documentXml(para('sixteen é'), '<?xml version="1.0" encoding="UTF-16"?>'), 'utf16le')]);
    assert.equal(await renderDocument('u16.docx', docx(utf16)), 'sixteen é\n');
    assert.equal(await renderDocument('l1.docx', docx(Buffer.from(documentXml(para('café'), '<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1'))), 'café\n');
  });

  test('what expat refuses is malformed: undefined and DTD-declared entities, bytes not of the encoding, unbound prefixes, junk', async () => {
    const malformed: Array<[string, string | Buffer]> = [
      ['undefined entity', documentXml(para('a&nbsp;b'))],
      ['DTD-declared entity', documentXml(para('a&e;b'), '<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY e "EXPANDED">]>')],
      ['external entity', documentXml(para('a&ext;b'), '<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY ext SYSTEM "file:///etc/hostname">]>')],
      ['Latin-1 bytes read as UTF-8', Buffer.from(documentXml(para('café')), 'latin1')],
      ['a control character', documentXml(para('a\u0001b'))],
      ['a reference to NUL', documentXml(para('a&#0;b'))],
      ['an unbound prefix', documentXml(para('x') + '<q:p/>')],
      ['mismatched tags', documentXml('<w:p><w:r><w:t>x</w:r></w:t></w:p>')],
      ['text after the root', documentXml(para('x')) + 'junk'],
      ['a second root', documentXml(para('x')) + '<w:document/>'],
      ['an XML declaration not at the start', ' ' + documentXml(para('x'))],
      ['an encoding expat does not know', documentXml(para('x'), '<?xml version="1.0" encoding="windows-1252"?>')],
      ['no element', ''],
    ];
    for (const [what, xml] of malformed) assert.match(await refusal('m.docx', docx(xml)), /^Malformed XML in word\/document\.xml: /, what);
    // A DTD that declares no entity in use is no reason to refuse (expat reads it).
    assert.equal(await renderDocument('dtd.docx', docx(documentXml(para('plain'), '<?xml version="1.0"?><!DOCTYPE w:document [<!ELEMENT x ANY>]>'))), 'plain\n');
  });
});

describe('read_file documents: rendered on the CPU pool', () => {
  test('a Word document and a large notebook render on the pool, a small notebook inline', async () => {
    const c = cases.make();
    c.file('doc.docx', docx(documentXml(para('pooled'))));
    let before = cpuPoolCompleted();
    let r = await call(c.read, { path: 'doc.docx' });
    assert.equal(r.content, '1|pooled');
    assert.equal(r.extracted_document, true);
    assert.equal(cpuPoolCompleted(), before + 1, 'through the pool');

    c.file('small.ipynb', JSON.stringify({ cells: [{ cell_type: 'code', source: 'x = 1\n' }] }));
    before = cpuPoolCompleted();
    r = await call(c.read, { path: 'small.ipynb' });
    assert.equal(r.content, '1|# ── Code cell 1 ──\n2|x = 1');
    assert.equal(cpuPoolCompleted(), before, 'inline');

    const cells = Array.from({ length: 2000 }, (_, i) => ({ cell_type: 'code', source: [`value_${i} = ${i}\n`, `print(value_${i})\n`] }));
    c.file('big.ipynb', JSON.stringify({ cells }));
    before = cpuPoolCompleted();
    r = await call(c.read, { path: 'big.ipynb', offset: 5, limit: 3 });
    assert.equal(r.content, '5|# ── Code cell 2 ──\n6|value_1 = 1\n7|print(value_1)');
    assert.equal(r.total_lines, 7999); // four lines a cell, the last one's blank line trimmed
    assert.equal(cpuPoolCompleted(), before + 1, 'through the pool');

    // A notebook the pool finds malformed falls back to the ordinary read, as one rendered inline does.
    c.file('broken.ipynb', '{"cells": [' + ' '.repeat(20_000) + '\n');
    r = await call(c.read, { path: 'broken.ipynb' });
    assert.equal(r.extracted_document, undefined);
    assert.match(text(r.content), /^1\|\{"cells": \[/);
  });

  test('the event loop keeps turning while a large workbook renders', async () => {
    const c = cases.make();
    c.file('big.xlsx', workbook(3000, 10));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const started = performance.now();
    const r = await call(c.read, { path: 'big.xlsx', limit: 2 });
    const took = performance.now() - started;
    clearInterval(timer);
    assert.equal(r.content, '1|# ── Sheet: Data ──\n2|' + Array.from({ length: 10 }, (_, i) => String(10 + i)).join('\t'));
    assert.equal(r.total_lines, 3001);
    assert.ok(ticks >= Math.min(5, took / 20), `timers ran during the rendering (${ticks} ticks in ${Math.round(took)} ms)`);
  });

  test('a cancelled read stops its rendering', async () => {
    const c = cases.make();
    c.file('big.xlsx', workbook(3000, 10));
    const controller = new AbortController();
    const pending = c.read.handler({ path: 'big.xlsx' }, { ...ctx, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expectCode(pending, ErrorCode.CANCELLED);
  });
});
