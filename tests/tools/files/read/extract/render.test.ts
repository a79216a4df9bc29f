import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { DOCUMENTS_0_19, renderDocument, type RenderOptions } from '../../../../../supervisor/tools/files/read/extract/render.js';
import { ExtractionError } from '../../../../../supervisor/tools/files/read/extract/text.js';
import { zip } from '../../../../helpers/zip.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const LATER: RenderOptions = { notebookOutputs: true, phoneticSkipped: true, sqlite: true, anydoc: true, displayPath: 'shown/nb.ipynb' };

const notebook = Buffer.from(JSON.stringify({ cells: [{ cell_type: 'code', source: 'print(1)', outputs: [{ output_type: 'stream', text: '1\n' }] }] }));

function sqliteBytes(): Buffer {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
  const bytes = db.serialize();
  db.close();
  return bytes;
}

test('Hermes 0.19 by default: notebooks without outputs, no SQLite', async () => {
  assert.deepEqual(DOCUMENTS_0_19, { notebookOutputs: false, phoneticSkipped: false, sqlite: false, anydoc: false });
  assert.equal(await renderDocument('a/NB.IPYNB', notebook), '# ── Code cell 1 ──\nprint(1)\n');
  await assert.rejects(renderDocument('data.db', sqliteBytes()), (e: unknown) => e instanceof ExtractionError && e.message === "Unsupported document type: 'data.db'");
});

test('the later Hermes: outputs and SQLite by extension', async () => {
  assert.equal(await renderDocument('nb.ipynb', notebook, LATER), '# ── Code cell 1 ──\nprint(1)\n\n# ── Output (cell 1) ──\n1\n');
  for (const name of ['x.db', 'x.sqlite', 'x.SQLITE3']) assert.match(await renderDocument(name, sqliteBytes(), LATER), /^# SQLite database\n\n1 table\(s\)/);
});

test('Word documents through their archive; what is no archive names the kind', async () => {
  const doc = zip([{ name: 'word/document.xml', data: Buffer.from(`<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>`) }]);
  assert.equal(await renderDocument('r.docx', doc), 'hi\n');
  await assert.rejects(renderDocument('r.docx', Buffer.from('nope')), { message: 'Not a valid DOCX: File is not a zip file' });
  await assert.rejects(renderDocument('r.xlsx', Buffer.from('nope')), { message: 'Not a valid XLSX: File is not a zip file' });
});

test('any other extension is unsupported', async () => {
  await assert.rejects(renderDocument('notes.txt', Buffer.from('x'), LATER), { message: "Unsupported document type: 'notes.txt'" });
  await assert.rejects(renderDocument('report.pdf', Buffer.from('x'), LATER), ExtractionError);
});
