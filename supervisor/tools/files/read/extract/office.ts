import { posix } from 'node:path';
import { ExtractionError, trimNewlines } from './text.js';
import type { Zip } from './zip.js';
import { iterXml, optionalXml, xmlOrNull, zipXml, type XmlElement } from './xml.js';

// read_file's Word documents and Excel workbooks as text (Hermes' tools/read_extract.py): the
// archive read by zip.ts, its XML by xml.ts.

// ---------------------------------------------------------------------------------------------
// Word documents (Hermes `_extract_docx`): each w:p a line, w:tab a tab, w:br / w:cr a line break;
// after 0.19 a ruby guide (w:rt, the phonetic reading over w:rubyBase) is not text.

const W = '{http://schemas.openxmlformats.org/wordprocessingml/2006/main}';

/** The element and its descendants in document order, without any w:rt and what is inside it when `skipRuby`. */
function* paragraphNodes(el: XmlElement, skipRuby: boolean): Generator<XmlElement> {
  if (skipRuby && el.tag === `${W}rt`) return;
  yield el;
  for (const child of el.children) yield* paragraphNodes(child, skipRuby);
}

export async function docxText(zip: Zip, skipPhonetic = false): Promise<string> {
  const root = await zipXml(zip, 'word/document.xml');
  const lines: string[] = [];
  for (const para of iterXml(root, `${W}p`)) {
    const buf: string[] = [];
    for (const node of paragraphNodes(para, skipPhonetic)) {
      if (node.tag === `${W}t`) buf.push(node.text);
      else if (node.tag === `${W}tab`) buf.push('\t');
      else if (node.tag === `${W}br` || node.tag === `${W}cr`) buf.push('\n');
    }
    lines.push(...buf.join('').split('\n'));
  }
  if (!lines.some((l) => l.trim() !== '')) throw new ExtractionError('DOCX contains no extractable text');
  return trimNewlines(lines.join('\n')) + '\n';
}

// ---------------------------------------------------------------------------------------------
// Excel workbooks (Hermes `_extract_xlsx`): each visible sheet's rows, cells joined by tabs.

const S = '{http://schemas.openxmlformats.org/spreadsheetml/2006/main}';
const R = '{http://schemas.openxmlformats.org/officeDocument/2006/relationships}';
const PKG_REL = '{http://schemas.openxmlformats.org/package/2006/relationships}';
const MAX_XLSX_ROWS_PER_SHEET = 5000;
const MAX_XLSX_COLS = 256;

const textsOf = (el: XmlElement): string => [...iterXml(el, `${S}t`)].map((t) => t.text).join('');

/**
 * Hermes after 0.19 `_xlsx_string_text`: an si/is's own t, and each r's first t, joined; a phonetic
 * run (rPh) is not text. `textsOf` (every t inside) is 0.19's.
 */
function baseText(el: XmlElement): string {
  return el.children
    .map((c) => (c.tag === `${S}t` ? c.text : c.tag === `${S}r` ? (c.children.find((t) => t.tag === `${S}t`)?.text ?? '') : ''))
    .join('');
}

/** Python's `int(text)` for an index (None when it would raise). */
function pyInt(text: string): number | null {
  return /^\s*[+-]?\d+\s*$/.test(text) ? Number(text.trim()) : null;
}

function colIndex(ref: string): number {
  let idx = 0;
  for (const ch of ref) {
    if (!/\p{L}/u.test(ch)) break;
    idx = idx * 26 + ch.toUpperCase().charCodeAt(0) - 65 + 1;
  }
  return Math.max(idx - 1, 0);
}

function cellValue(cell: XmlElement, shared: string[], stringText: (el: XmlElement) => string): string {
  const v = cell.children.find((c) => c.tag === `${S}v`);
  const value = v?.text ?? '';
  const type = cell.attrs.get('t') ?? '';
  if (type === 's') {
    const i = pyInt(value);
    if (i === null || i >= shared.length || i < -shared.length) return '';
    return shared[i < 0 ? shared.length + i : i]!;
  }
  if (type === 'inlineStr') {
    const inline = cell.children.find((c) => c.tag === `${S}is`);
    return inline ? stringText(inline) : '';
  }
  if (type === 'b') return ['1', 'true', 'TRUE'].includes(value.trim()) ? 'TRUE' : 'FALSE';
  if (type === 'e') return value || '#ERROR';
  return value;
}

function sheetRows(root: XmlElement, shared: string[], stringText: (el: XmlElement) => string): string[][] {
  const rows: string[][] = [];
  for (const row of iterXml(root, `${S}row`)) {
    if (rows.length >= MAX_XLSX_ROWS_PER_SHEET) break;
    const cells = new Map<number, string>();
    let maxCol = -1;
    for (const cell of iterXml(row, `${S}c`)) {
      const ref = cell.attrs.get('r');
      const col = ref ? colIndex(ref) : maxCol + 1;
      if (col >= MAX_XLSX_COLS) continue;
      cells.set(col, cellValue(cell, shared, stringText));
      maxCol = Math.max(maxCol, col);
    }
    rows.push(Array.from({ length: maxCol + 1 }, (_, i) => cells.get(i) ?? ''));
  }
  while (rows.length > 0 && !rows[rows.length - 1]!.some((v) => v.trim() !== '')) rows.pop();
  return rows;
}

function sheetPart(target: string): string {
  const t = target.replace(/^\/+/, '');
  const joined = t.startsWith('xl/') ? t : `xl/${t}`;
  return posix.normalize(joined).replace(/(.)\/+$/, '$1');
}

export async function xlsxText(zip: Zip, skipPhonetic = false): Promise<string> {
  const stringText = skipPhonetic ? baseText : textsOf;
  const sst = await optionalXml(zip, 'xl/sharedStrings.xml');
  const shared = sst ? [...iterXml(sst, `${S}si`)].map(stringText) : [];
  const workbook = await zipXml(zip, 'xl/workbook.xml');
  const rels = new Map<string, string>();
  const relsXml = await optionalXml(zip, 'xl/_rels/workbook.xml.rels');
  if (relsXml) for (const rel of iterXml(relsXml, `${PKG_REL}Relationship`)) if (rel.attrs.get('Id')) rels.set(rel.attrs.get('Id')!, rel.attrs.get('Target') ?? '');
  const out: string[] = [];
  for (const sheet of iterXml(workbook, `${S}sheet`)) {
    const state = sheet.attrs.get('state') ?? 'visible';
    if (state === 'hidden' || state === 'veryHidden') continue;
    const part = sheetPart(rels.get(sheet.attrs.get(`${R}id`) ?? '') ?? '');
    if (!zip.entries.has(part)) continue;
    const sheetXml = xmlOrNull(await zip.read(part));
    if (sheetXml === null) continue;
    const rows = sheetRows(sheetXml, shared, stringText);
    out.push(`# ── Sheet: ${sheet.attrs.get('name') ?? 'Sheet'} ──`, ...rows.map((r) => r.join('\t')));
    if (rows.length === 0) out.push('(empty)');
    out.push('');
  }
  if (out.length === 0) throw new ExtractionError('XLSX has no visible sheets with content');
  return trimNewlines(out.join('\n')) + '\n';
}
