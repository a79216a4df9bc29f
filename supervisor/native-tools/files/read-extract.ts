import { inflateRawSync } from 'node:zlib';
import { decodeLenient, fileExtension } from './fs-util.js';

// read_file's document-to-text extraction, as Hermes' tools/read_extract.py does it: Jupyter
// notebooks (.ipynb) and Word documents (.docx) are rendered as text, which read_file then pages
// and numbers like any file. A document that cannot be rendered throws ExtractionError and the
// caller falls back to the ordinary text/binary handling. (Excel workbooks are not rendered here.)

export class ExtractionError extends Error {}

const EXTRACTABLE = new Set(['.ipynb', '.docx']);

export function isExtractableDocument(path: string): boolean {
  return EXTRACTABLE.has(fileExtension(path));
}

/** The document's text (every line ending in "\n"); `bytes` is the whole file. */
export function extractDocumentText(path: string, bytes: Buffer): string {
  const ext = fileExtension(path);
  if (ext === '.ipynb') return notebookText(bytes);
  if (ext === '.docx') return docxText(bytes);
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
// Word documents (Hermes `_extract_docx`): word/document.xml from the ZIP, each w:p a line, w:tab
// a tab, w:br / w:cr a line break.

const NS_W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
/** The most one ZIP member may inflate to. */
const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

/** One member of a ZIP archive (stored or deflated), or null when the archive has no such member. */
function zipMember(zip: Buffer, name: string): Buffer | null {
  const minEnd = Math.max(0, zip.length - 22 - 0xffff);
  let end = -1;
  for (let i = zip.length - 22; i >= minEnd; i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ExtractionError('Not a valid DOCX: File is not a zip file');
  const entries = zip.readUInt16LE(end + 10);
  let p = zip.readUInt32LE(end + 16);
  for (let n = 0; n < entries; n++) {
    if (p + 46 > zip.length || zip.readUInt32LE(p) !== 0x02014b50) throw new ExtractionError('Not a valid DOCX: bad central directory');
    const method = zip.readUInt16LE(p + 10);
    const compressed = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const entryName = zip.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;
    if (entryName !== name) continue;
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) throw new ExtractionError('Not a valid DOCX: bad local header');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    try {
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data, { maxOutputLength: MAX_MEMBER_BYTES });
    } catch (e) {
      throw new ExtractionError(`Not a valid DOCX: ${(e as Error).message}`);
    }
    throw new ExtractionError(`Not a valid DOCX: compression method ${method}`);
  }
  return null;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function xmlText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

function docxText(bytes: Buffer): string {
  const xml = zipMember(bytes, 'word/document.xml');
  if (xml === null) throw new ExtractionError('Missing word/document.xml');
  const doc = xml.toString('utf8');
  // The prefixes bound to the WordprocessingML namespace (declared on the root, as Word writes it).
  const prefixes = new Set<string>();
  for (const m of doc.matchAll(/xmlns(?::([\w.-]+))?\s*=\s*["']([^"']*)["']/g)) if (m[2] === NS_W) prefixes.add(m[1] ?? '');
  const local = (qname: string): string | null => {
    const i = qname.indexOf(':');
    const prefix = i < 0 ? '' : qname.slice(0, i);
    return prefixes.has(prefix) ? qname.slice(i + 1) : null;
  };
  const lines: string[] = [];
  let depth = 0; // open w:p elements
  let buf: string[] = [];
  let inText = false;
  const tag = /<(\/?)([\w.:-]+)[^>]*?(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>|<[!?][^>]*>|([^<]+)/g;
  for (const m of doc.matchAll(tag)) {
    if (m[5] !== undefined || m[4] !== undefined) {
      if (inText && depth > 0) buf.push(m[5] !== undefined ? xmlText(m[5]) : m[4]!);
      continue;
    }
    if (m[2] === undefined) continue;
    const name = local(m[2]);
    const closing = m[1] === '/';
    const empty = m[3] === '/';
    if (name === 'p') {
      if (!closing) depth++;
      if (closing || empty) {
        depth = Math.max(0, depth - 1);
        if (depth === 0) {
          lines.push(...buf.join('').split('\n'));
          buf = [];
        }
      }
    } else if (name === 't') {
      inText = !closing && !empty;
    } else if (depth > 0 && !closing && name === 'tab') {
      buf.push('\t');
    } else if (depth > 0 && !closing && (name === 'br' || name === 'cr')) {
      buf.push('\n');
    }
  }
  if (!lines.some((l) => l.trim() !== '')) throw new ExtractionError('DOCX contains no extractable text');
  return trimNewlines(lines.join('\n')) + '\n';
}
