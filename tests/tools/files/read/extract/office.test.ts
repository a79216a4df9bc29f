import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { docxText, xlsxText } from '../../../../../supervisor/tools/files/read/extract/office.js';
import { Zip } from '../../../../../supervisor/tools/files/read/extract/zip.js';
import { zip, type Member } from '../../../../helpers/zip.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';

async function withZip<T>(members: Array<[string, string]>, kind: string, fn: (z: Zip) => Promise<T>): Promise<T> {
  const z = await Zip.open(zip(members.map(([name, text]): Member => ({ name, data: Buffer.from(text) }))), kind);
  try {
    return await fn(z);
  } finally {
    z.close();
  }
}

const docx = (body: string, skip = false) => withZip([['word/document.xml', `<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`]], 'DOCX', (z) => docxText(z, skip));

describe('docxText', () => {
  test('paragraphs as lines; tabs, breaks and carriage returns as characters; trailing blank lines trimmed', async () => {
    const body =
      '<w:p><w:r><w:t>Hello</w:t><w:tab/><w:t>world</w:t></w:r></w:p>' +
      '<w:p><w:r><w:t>one</w:t><w:br/><w:t>two</w:t><w:cr/><w:t>three</w:t></w:r></w:p>' +
      '<w:p/><w:p/>';
    assert.equal(await docx(body), 'Hello\tworld\none\ntwo\nthree\n');
  });

  test('ruby (phonetic) text is kept by Hermes 0.19 and skipped after', async () => {
    const body = '<w:p><w:r><w:ruby><w:rt><w:r><w:t>かん</w:t></w:r></w:rt><w:rubyBase><w:r><w:t>漢</w:t></w:r></w:rubyBase></w:ruby></w:r></w:p>';
    assert.equal(await docx(body), 'かん漢\n');
    assert.equal(await docx(body, true), '漢\n');
  });

  test('no text is an ExtractionError; a missing document part too', async () => {
    await assert.rejects(docx('<w:p><w:r><w:t>  </w:t></w:r></w:p>'), { message: 'DOCX contains no extractable text' });
    await assert.rejects(withZip([['other.xml', '<r/>']], 'DOCX', (z) => docxText(z)), { message: 'Missing word/document.xml' });
  });
});

function workbook(sheets: Array<{ name: string; target: string; state?: string }>, parts: Array<[string, string]>, shared?: string): Array<[string, string]> {
  const wb = `<workbook xmlns="${S}" xmlns:r="${R}"><sheets>${sheets.map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}" r:id="rId${i + 1}"${s.state ? ` state="${s.state}"` : ''}/>`).join('')}</sheets></workbook>`;
  const rels = `<Relationships xmlns="${PKG}">${sheets.map((s, i) => `<Relationship Id="rId${i + 1}" Target="${s.target}"/>`).join('')}</Relationships>`;
  return [['xl/workbook.xml', wb], ['xl/_rels/workbook.xml.rels', rels], ...(shared ? [['xl/sharedStrings.xml', shared] as [string, string]] : []), ...parts];
}
const sheet = (rows: string) => `<worksheet xmlns="${S}"><sheetData>${rows}</sheetData></worksheet>`;

describe('xlsxText', () => {
  test('cells by type, placed by their column reference; trailing empty rows dropped; hidden sheets skipped', async () => {
    const sst = `<sst xmlns="${S}"><si><t>shared</t></si><si><r><t>rich</t></r><r><t>text</t></r></si></sst>`;
    const rows =
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c><c r="D1" t="s"><v>9</v></c></row>' +
      '<row r="2"><c r="A2" t="b"><v>1</v></c><c r="B2" t="b"><v>0</v></c><c r="C2" t="e"><v>#DIV/0!</v></c><c r="D2" t="e"/><c r="E2"><v>3.5</v></c></row>' +
      `<row r="3"><c r="A3" t="inlineStr"><is><t>inline</t></is></c><c t="s"><v>-1</v></c></row>` +
      '<row r="4"><c r="A4"><v> </v></c></row>';
    const members = workbook(
      [
        { name: 'Data', target: 'worksheets/sheet1.xml' },
        { name: 'Secret', target: 'worksheets/sheet2.xml', state: 'hidden' },
        { name: 'Blank', target: '/xl/worksheets/sheet3.xml' },
        { name: 'Gone', target: 'worksheets/missing.xml' },
      ],
      [
        ['xl/worksheets/sheet1.xml', sheet(rows)],
        ['xl/worksheets/sheet2.xml', sheet('<row r="1"><c r="A1"><v>hidden</v></c></row>')],
        ['xl/worksheets/sheet3.xml', sheet('')],
      ],
      sst,
    );
    assert.equal(
      await withZip(members, 'XLSX', (z) => xlsxText(z)),
      '# ── Sheet: Data ──\nshared\t\trichtext\t\nTRUE\tFALSE\t#DIV/0!\t#ERROR\t3.5\ninline\trichtext\n\n# ── Sheet: Blank ──\n(empty)\n',
    );
  });

  test('a phonetic run is text for Hermes 0.19 and not after', async () => {
    const sst = `<sst xmlns="${S}"><si><t>東京</t><rPh><t>トウキョウ</t></rPh></si></sst>`;
    const members = workbook([{ name: 'S', target: 'worksheets/s.xml' }], [['xl/worksheets/s.xml', sheet('<row><c t="s"><v>0</v></c></row>')]], sst);
    assert.equal(await withZip(members, 'XLSX', (z) => xlsxText(z)), '# ── Sheet: S ──\n東京トウキョウ\n');
    assert.equal(await withZip(members, 'XLSX', (z) => xlsxText(z, true)), '# ── Sheet: S ──\n東京\n');
  });

  test('no visible sheet is an ExtractionError; a workbook without workbook.xml too', async () => {
    const members = workbook([{ name: 'H', target: 'worksheets/h.xml', state: 'veryHidden' }], [['xl/worksheets/h.xml', sheet('')]]);
    await assert.rejects(withZip(members, 'XLSX', (z) => xlsxText(z)), { message: 'XLSX has no visible sheets with content' });
    await assert.rejects(withZip([['x', 'y']], 'XLSX', (z) => xlsxText(z)), { message: 'Missing xl/workbook.xml' });
  });
});
