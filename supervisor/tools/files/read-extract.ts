import { posix } from 'node:path';
import { crc32 } from 'node:zlib';
import { createRequire } from 'node:module';
import type yauzl from 'yauzl';
import { decodeLenient, fileExtension } from './fs-util.js';

// yauzl and saxes are loaded on first use (their CommonJS builds): read_file renders notebooks on
// the event loop from this module, and an idle gateway should not carry a ZIP reader and an XML
// parser it may never need (every module loaded at start-up counts against the idle-RSS budget).
const requireHere = createRequire(import.meta.url);
let yauzlModule: typeof yauzl | undefined;
const yauzlLib = (): typeof yauzl => (yauzlModule ??= requireHere('yauzl') as typeof yauzl);
let saxesModule: typeof import('saxes') | undefined;
const saxesLib = (): typeof import('saxes') => (saxesModule ??= requireHere('saxes') as typeof import('saxes'));

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

/**
 * The document's text (every line ending in "\n"); `bytes` is the whole file. CPU-bound (a workbook
 * may hold 64 MiB of XML per sheet): read_file runs it on the CPU pool (read-extract-task.ts).
 */
export async function renderDocument(path: string, bytes: Buffer): Promise<string> {
  const ext = fileExtension(path);
  if (ext === '.ipynb') return notebookText(bytes);
  if (ext === '.docx') return withZip(bytes, 'DOCX', docxText);
  if (ext === '.xlsx') return withZip(bytes, 'XLSX', xlsxText);
  throw new ExtractionError(`Unsupported document type: ${path}`);
}

async function withZip(bytes: Buffer, kind: string, render: (zip: Zip) => Promise<string>): Promise<string> {
  const zip = await Zip.open(bytes, kind);
  try {
    return await render(zip);
  } finally {
    zip.close();
  }
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

/** Python's `s.rstrip("\n")` (a loop: the regex /\n+$/ retries at every newline of a long text). */
function trimNewlines(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 10) end--;
  return end === s.length ? s : s.slice(0, end);
}

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
// ZIP members and XML elements, as much of Python's zipfile and ElementTree as the extractors use:
// the archive is read by yauzl (central directory, zip64, local headers, stored and deflated
// members), its XML by saxes (a conforming, namespace-aware parser that expands no entity beyond
// XML's five and character references: a DOCTYPE's own entities are refused, external ones never read).

/** The most one ZIP member may inflate to: a larger one (declared or actual) is refused, not inflated. */
export const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

const EOCD_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/**
 * The archive where zipfile finds it, when that is not the whole file: its end record's comment
 * taken at its stated length (bytes after it ignored), and bytes before it skipped (zipfile
 * subtracts them from every offset, as for a self-extracting archive). Null when nothing is cut.
 */
function archiveWithin(bytes: Buffer): Buffer | null {
  const eocd = bytes.lastIndexOf(EOCD_SIGNATURE, Math.max(0, bytes.length - 22));
  if (eocd < 0 || eocd + 22 > bytes.length) return null;
  const end = Math.min(bytes.length, eocd + 22 + bytes.readUInt16LE(eocd + 20));
  const start = Math.max(0, eocd - bytes.readUInt32LE(eocd + 12) - bytes.readUInt32LE(eocd + 16));
  return start > 0 || end < bytes.length ? bytes.subarray(start, end) : null;
}

const ZIP_OPTIONS = { autoClose: false, decodeStrings: false, validateEntrySizes: false };

/** The archive and its members by name, as zipfile names them (UTF-8 when flagged, else cp437, cut at a NUL; a later duplicate wins). */
async function listZip(bytes: Buffer): Promise<{ zip: yauzl.ZipFile; entries: Map<string, yauzl.Entry> }> {
  const zip = await yauzlLib().fromBufferPromise(bytes, ZIP_OPTIONS);
  try {
    const entries = new Map<string, yauzl.Entry>();
    for await (const entry of zip.eachEntry()) {
      const name = yauzlLib().getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      const nul = name.indexOf('\0');
      entries.set(nul < 0 ? name : name.slice(0, nul), entry);
    }
    return { zip, entries };
  } catch (e) {
    zip.close();
    throw e;
  }
}

/** A ZIP archive's members by name; `open` throws ExtractionError when it is not one. */
class Zip {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly entries: Map<string, yauzl.Entry>,
  ) {}

  static async open(bytes: Buffer, kind: string): Promise<Zip> {
    try {
      let listed;
      try {
        listed = await listZip(bytes);
      } catch (e) {
        // yauzl wants the archive to be the whole file; zipfile also reads one with bytes before or after it.
        const within = archiveWithin(bytes);
        if (within === null) throw e;
        listed = await listZip(within);
      }
      return new Zip(listed.zip, listed.entries);
    } catch (e) {
      throw new ExtractionError(`Not a valid ${kind}: ${(e as Error).message}`);
    }
  }

  close(): void {
    this.zip.close();
  }

  /**
   * A member's bytes, checked as zipfile checks them (its CRC-32). One declared or found larger than
   * MAX_MEMBER_BYTES, or larger than its declared size, is refused as soon as that is known: a
   * zip bomb is never inflated past the cap. A missing member throws ExtractionError `Missing <name>`.
   */
  async read(name: string): Promise<Buffer> {
    const entry = this.entries.get(name);
    if (!entry) throw new ExtractionError(`Missing ${name}`);
    if (entry.uncompressedSize > MAX_MEMBER_BYTES) throw new ExtractionError(`Member ${name} would inflate to ${entry.uncompressedSize} bytes, over ${MAX_MEMBER_BYTES}`);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      const stream = await this.zip.openReadStreamPromise(entry);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > entry.uncompressedSize) throw new ExtractionError(`Member ${name} inflates past its declared ${entry.uncompressedSize} bytes`);
          chunks.push(chunk);
        }
      } finally {
        stream.destroy();
      }
    } catch (e) {
      if (e instanceof ExtractionError) throw e;
      throw new ExtractionError(`Bad member ${name}: ${(e as Error).message}`);
    }
    const data = Buffer.concat(chunks, size);
    if (crc32(data) !== entry.crc32) throw new ExtractionError(`Bad CRC-32 for file ${name}`);
    return data;
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

/** The encodings expat itself reads (UTF-8 and UTF-16 aside), by the names it knows them by. */
const LATIN1 = new Set(['iso-8859-1', 'iso8859-1', 'latin-1', 'latin1', 'l1']);
const ASCII = new Set(['us-ascii', 'ascii']);
const UTF8 = new Set(['utf-8', 'utf8']);
const XML_DECL_ENCODING = /^<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._-]*)\1/;
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
const UTF16LE_STRICT = new TextDecoder('utf-16le', { fatal: true });
const UTF16BE_STRICT = new TextDecoder('utf-16be', { fatal: true });

/**
 * The document's text as expat reads it (XML 1.0 Appendix F): UTF-16 after its byte-order mark,
 * else the encoding its XML declaration names, else UTF-8. Bytes not of that encoding make it
 * malformed, and so does an encoding other than UTF-8, UTF-16, ISO-8859-1 and US-ASCII (Python
 * lends expat its single-byte codecs too; an Office document may only be UTF-8 or UTF-16).
 */
function xmlSource(bytes: Buffer): string {
  const invalid = () => new XmlParseError('not well-formed (invalid token)');
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return UTF16LE_STRICT.decode(bytes);
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return UTF16BE_STRICT.decode(bytes);
    const declared = bytes[0] === 0x3c ? XML_DECL_ENCODING.exec(bytes.subarray(0, 256).toString('latin1'))?.[2]?.toLowerCase() : undefined;
    if (declared === undefined || UTF8.has(declared)) return UTF8_STRICT.decode(bytes);
    if (LATIN1.has(declared)) return bytes.toString('latin1');
    if (ASCII.has(declared)) {
      if (bytes.some((b) => b > 0x7f)) throw invalid();
      return bytes.toString('latin1');
    }
    throw new XmlParseError(`unknown encoding: ${declared}`);
  } catch (e) {
    if (e instanceof XmlParseError) throw e;
    throw invalid(); // TextDecoder's TypeError for bytes that are not UTF-8 / UTF-16
  }
}

const clark = (uri: string, local: string): string => (uri ? `{${uri}}${local}` : local);

/** The document's root element; malformed XML throws XmlParseError. */
function parseXml(bytes: Buffer): XmlElement {
  const parser = new (saxesLib().SaxesParser)({ xmlns: true, position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  parser.on('opentag', (tag) => {
    const attrs = new Map<string, string>();
    for (const attr of Object.values(tag.attributes)) {
      if (attr.name === 'xmlns' || attr.prefix === 'xmlns') continue; // declarations, not attributes, to ElementTree
      attrs.set(clark(attr.uri, attr.local), attr.value);
    }
    const el: XmlElement = { tag: clark(tag.uri, tag.local), attrs, children: [], text: '' };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else root = el;
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  // ElementTree's `text` is what comes before an element's first child (comments and PIs dropped).
  const addText = (text: string) => {
    const top = stack[stack.length - 1];
    if (top && top.children.length === 0) top.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  try {
    parser.write(xmlSource(bytes)).close();
  } catch (e) {
    if (e instanceof XmlParseError) throw e;
    throw new XmlParseError((e as Error).message);
  }
  if (root === null) throw new XmlParseError('no element found');
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

async function zipXml(zip: Zip, name: string): Promise<XmlElement> {
  const bytes = await zip.read(name);
  try {
    return parseXml(bytes);
  } catch (e) {
    if (e instanceof XmlParseError) throw new ExtractionError(`Malformed XML in ${name}: ${e.message}`);
    throw e;
  }
}

async function docxText(zip: Zip): Promise<string> {
  const root = await zipXml(zip, 'word/document.xml');
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
async function optionalXml(zip: Zip, name: string): Promise<XmlElement | null> {
  if (!zip.entries.has(name)) return null;
  const bytes = await zip.read(name);
  try {
    return parseXml(bytes);
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

async function xlsxText(zip: Zip): Promise<string> {
  const sst = await optionalXml(zip, 'xl/sharedStrings.xml');
  const shared = sst ? [...iterXml(sst, `${S}si`)].map(textsOf) : [];
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
    const sheetXml = await zip.read(part);
    let rows: string[][];
    try {
      rows = sheetRows(parseXml(sheetXml), shared);
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
