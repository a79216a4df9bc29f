import { decodeLenient, fileExtension } from './fs-util.js';
import { docxText, xlsxText } from './read-extract-office.js';
import { ExtractionError, trimNewlines } from './read-extract-text.js';
import { Zip } from './read-extract-zip.js';

// read_file's document-to-text extraction, as Hermes' tools/read_extract.py does it: Jupyter
// notebooks (.ipynb), Word documents (.docx) and Excel workbooks (.xlsx) are rendered as text,
// which read_file then pages and numbers like any file. A document that cannot be rendered throws
// ExtractionError and the caller falls back to the ordinary text/binary handling.
//
// Notebooks are read here; Word and Excel documents in read-extract-office.ts (their ZIP and XML
// in read-extract-zip.ts and read-extract-xml.ts, whose libraries load on first use).

export { ExtractionError, splitLines } from './read-extract-text.js';
export { MAX_MEMBER_BYTES } from './read-extract-zip.js';

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

// ---------------------------------------------------------------------------------------------
// Notebooks (Hermes `_extract_notebook`)

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

function sourceText(source: Json | undefined): string {
  if (typeof source === 'string') return source;
  if (Array.isArray(source)) return source.filter((s): s is string => typeof s === 'string').join('');
  return '';
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
