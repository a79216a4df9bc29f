import { posix } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { decodeLenient, fileExtension } from './fs-util.js';

// read_file's document-to-text extraction, as Hermes' tools/read_extract.py does it: Jupyter
// notebooks (.ipynb), Word documents (.docx) and Excel workbooks (.xlsx) are rendered as text,
// which read_file then pages and numbers like any file. A document that cannot be rendered throws
// ExtractionError and the caller falls back to the ordinary text/binary handling.

export class ExtractionError extends Error {}

const EXTRACTABLE = new Set(['.ipynb', '.docx', '.xlsx']);
/** The largest document rendered (upstream's MAX_XLSX_BYTES): a larger one is read as any file. */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

export function isExtractableDocument(path: string): boolean {
  return EXTRACTABLE.has(fileExtension(path));
}

/** The document's text (every line ending in "\n"); `bytes` is the whole file. */
export function extractDocumentText(path: string, bytes: Buffer): string {
  const ext = fileExtension(path);
  if (ext === '.ipynb') return notebookText(bytes);
  if (ext === '.docx') return docxText(bytes);
  if (ext === '.xlsx') return xlsxText(bytes);
  throw new ExtractionError(`Unsupported document type: ${path}`);
}

/** Python's `str.splitlines()`: every line boundary it knows, no trailing empty line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Notebooks (Hermes `_extract_notebook`)

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

function sourceText(source: Json | undefined): string {
  if (typeof source === 'string') return source;
  if (Array.isArray(source)) return source.filter((s): s is string => typeof s === 'string').join('');
  return '';
}

const trimNewlines = (s: string) => s.replace(/\n+$/, '');

function notebookText(bytes: Buffer): string {
  let nb: Json;
  try {
    nb = JSON.parse(decodeLenient(bytes)) as Json;
  } catch (e) {
    throw new ExtractionError(`Not a valid notebook: ${(e as Error).message}`);
  }
  if (!isObject(nb)) throw new ExtractionError('Notebook root is not an object');
  let cells: Json[];
  if (Array.isArray(nb.cells)) cells = nb.cells;
  else {
    const sheets = Array.isArray(nb.worksheets) ? nb.worksheets : [];
    cells = sheets.flatMap((ws) => (isObject(ws) && Array.isArray(ws.cells) ? ws.cells : []));
  }
  if (cells.length === 0) throw new ExtractionError('Notebook contains no cells');
  const labels: Record<string, string> = { markdown: 'Markdown', code: 'Code', raw: 'Raw' };
  const counts: Record<string, number> = { markdown: 0, code: 0, raw: 0 };
  const out: string[] = [];
  for (const cell of cells) {
    if (!isObject(cell)) continue;
    const type = cell.cell_type;
    if (typeof type !== 'string' || !(type in labels)) continue;
    counts[type]! += 1;
    const suffix = type !== 'raw' ? ` ${counts[type]}` : '';
    out.push(`# ── ${labels[type]} cell${suffix} ──`, trimNewlines(sourceText(cell.source ?? '')), '');
  }
  if (out.length === 0) throw new ExtractionError('Notebook contains no readable cells');
  return trimNewlines(out.join('\n')) + '\n';
}

// ---------------------------------------------------------------------------------------------
// ZIP members and XML elements, as much of Python's zipfile and ElementTree as the extractors use

/** The most one ZIP member may inflate to. */
const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

interface ZipEntry {
  method: number;
  compressed: number;
  local: number;
}

/** A ZIP archive's members by name (its central directory); throws ExtractionError when it is not one. */
class Zip {
  readonly entries = new Map<string, ZipEntry>();

  constructor(
    private readonly zip: Buffer,
    kind: string,
  ) {
    const minEnd = Math.max(0, zip.length - 22 - 0xffff);
    let end = -1;
    for (let i = zip.length - 22; i >= minEnd; i--) {
      if (zip.readUInt32LE(i) === 0x06054b50) {
        end = i;
        break;
      }
    }
    if (end < 0) throw new ExtractionError(`Not a valid ${kind}: File is not a zip file`);
    let p = zip.readUInt32LE(end + 16);
    for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
      if (p + 46 > zip.length || zip.readUInt32LE(p) !== 0x02014b50) throw new ExtractionError(`Not a valid ${kind}: bad central directory`);
      const nameLen = zip.readUInt16LE(p + 28);
      const name = zip.subarray(p + 46, p + 46 + nameLen).toString('utf8');
      this.entries.set(name, { method: zip.readUInt16LE(p + 10), compressed: zip.readUInt32LE(p + 20), local: zip.readUInt32LE(p + 42) });
      p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
    }
  }

  /** A member's bytes (stored or deflated); a missing member throws ExtractionError `Missing <name>`. */
  read(name: string): Buffer {
    const entry = this.entries.get(name);
    if (!entry) throw new ExtractionError(`Missing ${name}`);
    const { zip } = this;
    if (entry.local + 30 > zip.length || zip.readUInt32LE(entry.local) !== 0x04034b50) throw new ExtractionError(`Bad local header for ${name}`);
    const start = entry.local + 30 + zip.readUInt16LE(entry.local + 26) + zip.readUInt16LE(entry.local + 28);
    const data = zip.subarray(start, start + entry.compressed);
    try {
      if (entry.method === 0) return Buffer.from(data);
      if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: MAX_MEMBER_BYTES });
    } catch (e) {
      throw new ExtractionError(`Bad member ${name}: ${(e as Error).message}`);
    }
    throw new ExtractionError(`Unsupported compression method ${entry.method} for ${name}`);
  }
}

class XmlParseError extends ExtractionError {}

/** An element as ElementTree gives it: `{uri}local` tags and attribute names, its leading text. */
interface XmlElement {
  tag: string;
  attrs: Map<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function xmlText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    const named = ENTITIES[e];
    if (named === undefined) throw new XmlParseError(`undefined entity ${m}`);
    return named;
  });
}

const XML_TOKEN = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)|</g;
const XML_ATTR = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** The document's root element; malformed XML throws XmlParseError. */
function parseXml(bytes: Buffer): XmlElement {
  const xml = bytes.toString('utf8');
  const stack: Array<{ el: XmlElement; ns: Map<string, string>; qname: string }> = [];
  let root: XmlElement | null = null;
  const resolve = (qname: string, ns: Map<string, string>, isAttr: boolean): string => {
    const i = qname.indexOf(':');
    if (i < 0) {
      const uri = isAttr ? undefined : ns.get('');
      return uri ? `{${uri}}${qname}` : qname;
    }
    const uri = ns.get(qname.slice(0, i));
    if (uri === undefined) throw new XmlParseError(`unbound prefix in ${qname}`);
    return `{${uri}}${qname.slice(i + 1)}`;
  };
  const addText = (text: string) => {
    const top = stack[stack.length - 1];
    if (top && top.el.children.length === 0) top.el.text += text;
  };
  for (const m of xml.matchAll(XML_TOKEN)) {
    if (m[0] === '<') throw new XmlParseError('not well-formed');
    if (m[6] !== undefined) {
      if (stack.length === 0 && m[6].trim() !== '') throw new XmlParseError('text outside the root element');
      addText(xmlText(m[6]));
    } else if (m[1] !== undefined) {
      addText(m[1]);
    } else if (m[3] !== undefined) {
      if (m[2] === '/') {
        const top = stack.pop();
        if (!top || top.qname !== m[3]) throw new XmlParseError(`mismatched tag ${m[3]}`);
        continue;
      }
      if (root !== null && stack.length === 0) throw new XmlParseError('junk after document element');
      const ns = new Map(stack[stack.length - 1]?.ns ?? [['xml', 'http://www.w3.org/XML/1998/namespace']]);
      const raw: Array<[string, string]> = [];
      for (const a of (m[4] ?? '').matchAll(XML_ATTR)) {
        const value = xmlText(a[2] ?? a[3] ?? '');
        if (a[1] === 'xmlns') ns.set('', value);
        else if (a[1]!.startsWith('xmlns:')) ns.set(a[1]!.slice(6), value);
        else raw.push([a[1]!, value]);
      }
      const el: XmlElement = { tag: resolve(m[3], ns, false), attrs: new Map(raw.map(([k, v]) => [resolve(k, ns, true), v])), children: [], text: '' };
      const parent = stack[stack.length - 1];
      if (parent) parent.el.children.push(el);
      else root = el;
      if (m[5] !== '/') stack.push({ el, ns, qname: m[3] });
    }
  }
  if (root === null || stack.length > 0) throw new XmlParseError('no element found');
  return root;
}

/** ElementTree's `iter(tag)`: the element and its descendants with that tag, in document order. */
function* iterXml(el: XmlElement, tag?: string): Generator<XmlElement> {
  if (tag === undefined || el.tag === tag) yield el;
  for (const child of el.children) yield* iterXml(child, tag);
}

// ---------------------------------------------------------------------------------------------
// Word documents (Hermes `_extract_docx`): each w:p a line, w:tab a tab, w:br / w:cr a line break.

const W = '{http://schemas.openxmlformats.org/wordprocessingml/2006/main}';

function zipXml(zip: Zip, name: string): XmlElement {
  try {
    return parseXml(zip.read(name));
  } catch (e) {
    if (e instanceof XmlParseError) throw new ExtractionError(`Malformed XML in ${name}: ${e.message}`);
    throw e;
  }
}

function docxText(bytes: Buffer): string {
  const root = zipXml(new Zip(bytes, 'DOCX'), 'word/document.xml');
  const lines: string[] = [];
  for (const para of iterXml(root, `${W}p`)) {
    const buf: string[] = [];
    for (const node of iterXml(para)) {
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

/** A member parsed, or null when it is absent or malformed (upstream treats both as "none"). */
function optionalXml(zip: Zip, name: string): XmlElement | null {
  if (!zip.entries.has(name)) return null;
  try {
    return parseXml(zip.read(name));
  } catch (e) {
    if (e instanceof XmlParseError) return null;
    throw e;
  }
}

const textsOf = (el: XmlElement): string => [...iterXml(el, `${S}t`)].map((t) => t.text).join('');

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

function cellValue(cell: XmlElement, shared: string[]): string {
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
    return inline ? textsOf(inline) : '';
  }
  if (type === 'b') return ['1', 'true', 'TRUE'].includes(value.trim()) ? 'TRUE' : 'FALSE';
  if (type === 'e') return value || '#ERROR';
  return value;
}

function sheetRows(root: XmlElement, shared: string[]): string[][] {
  const rows: string[][] = [];
  for (const row of iterXml(root, `${S}row`)) {
    if (rows.length >= MAX_XLSX_ROWS_PER_SHEET) break;
    const cells = new Map<number, string>();
    let maxCol = -1;
    for (const cell of iterXml(row, `${S}c`)) {
      const ref = cell.attrs.get('r');
      const col = ref ? colIndex(ref) : maxCol + 1;
      if (col >= MAX_XLSX_COLS) continue;
      cells.set(col, cellValue(cell, shared));
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

function xlsxText(bytes: Buffer): string {
  const zip = new Zip(bytes, 'XLSX');
  const sst = optionalXml(zip, 'xl/sharedStrings.xml');
  const shared = sst ? [...iterXml(sst, `${S}si`)].map(textsOf) : [];
  const workbook = zipXml(zip, 'xl/workbook.xml');
  const rels = new Map<string, string>();
  const relsXml = optionalXml(zip, 'xl/_rels/workbook.xml.rels');
  if (relsXml) for (const rel of iterXml(relsXml, `${PKG_REL}Relationship`)) if (rel.attrs.get('Id')) rels.set(rel.attrs.get('Id')!, rel.attrs.get('Target') ?? '');
  const out: string[] = [];
  for (const sheet of iterXml(workbook, `${S}sheet`)) {
    const state = sheet.attrs.get('state') ?? 'visible';
    if (state === 'hidden' || state === 'veryHidden') continue;
    const part = sheetPart(rels.get(sheet.attrs.get(`${R}id`) ?? '') ?? '');
    if (!zip.entries.has(part)) continue;
    let rows: string[][];
    try {
      rows = sheetRows(parseXml(zip.read(part)), shared);
    } catch (e) {
      if (e instanceof XmlParseError) continue;
      throw e;
    }
    out.push(`# ── Sheet: ${sheet.attrs.get('name') ?? 'Sheet'} ──`, ...rows.map((r) => r.join('\t')));
    if (rows.length === 0) out.push('(empty)');
    out.push('');
  }
  if (out.length === 0) throw new ExtractionError('XLSX has no visible sheets with content');
  return trimNewlines(out.join('\n')) + '\n';
}
