import { fileExtension } from './fs-util.js';
import { notebookText } from './read-extract-notebook.js';
import { docxText, xlsxText } from './read-extract-office.js';
import { sqliteText } from './read-extract-sqlite.js';
import { ExtractionError } from './read-extract-text.js';
import { Zip } from './read-extract-zip.js';

// read_file's document-to-text extraction, as Hermes' tools/read_extract.py does it: Jupyter
// notebooks (.ipynb), Word documents (.docx) and Excel workbooks (.xlsx) are rendered as text, and
// as Hermes after 0.19 renders them also SQLite databases (.db, .sqlite, .sqlite3), which read_file
// then pages and numbers like any file. A document that cannot be rendered throws ExtractionError
// (read_file then answers as the Hermes followed: Hermes' failure text, or the ordinary read).
// The formats Hermes converts with firecrawl-anydoc (PDF, legacy and OpenXML Office, OpenDocument,
// RTF, EPUB) are not rendered here: Hermes' own extractor renders them (read-document.ts).
//
// Notebooks are read in read-extract-notebook.ts, SQLite in read-extract-sqlite.ts, Word and Excel
// documents in read-extract-office.ts (their ZIP and XML in read-extract-zip.ts and
// read-extract-xml.ts, whose libraries load on first use).

export { ExtractionError, splitLines } from './read-extract-text.js';
export { MAX_MEMBER_BYTES } from './read-extract-zip.js';

const OFFICE = new Set(['.ipynb', '.docx', '.xlsx']);
const SQLITE = new Set(['.db', '.sqlite', '.sqlite3']);
/** Hermes' ANYDOC_EXTENSIONS: what its extractor converts with firecrawl-anydoc (after 0.19). */
export const ANYDOC_EXTENSIONS: ReadonlySet<string> = new Set([
  '.doc', '.docm', '.ppt', '.pps', '.pot', '.pptx', '.pptm', '.ppsx', '.ppsm',
  '.xls', '.xlsm', '.xlsb', '.odt', '.ods', '.odp', '.rtf', '.epub', '.pdf',
]);
/** The largest document rendered (upstream's MAX_DOCUMENT_BYTES). */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

/** How documents render, as the Hermes followed renders them (read-file.ts `readRules`). */
export interface DocumentRules {
  /** Code cells' outputs after them, a byte-order mark dropped (after 0.19). */
  notebookOutputs: boolean;
  /** Ruby guides (w:rt) and phonetic runs (rPh) are not text (after 0.19). */
  phoneticSkipped: boolean;
  /** .db/.sqlite/.sqlite3 are documents (after 0.19). */
  sqlite: boolean;
  /** Hermes' anydoc formats are documents, rendered by Hermes' own extractor (after 0.19). */
  anydoc: boolean;
}

/** What the rendering needs besides the bytes. */
export interface RenderOptions extends DocumentRules {
  /** The document's path as Hermes names it in a rendering (a notebook's `jq` pointer). */
  displayPath: string;
}

/** Hermes 0.19's documents: what the gateway renders when told nothing else. */
export const DOCUMENTS_0_19: DocumentRules = { notebookOutputs: false, phoneticSkipped: false, sqlite: false, anydoc: false };

/** Whether `path` is a document (by its extension) for the Hermes followed. */
export function isExtractableDocument(path: string, rules: DocumentRules): boolean {
  const ext = fileExtension(path);
  return OFFICE.has(ext) || (rules.sqlite && SQLITE.has(ext)) || (rules.anydoc && ANYDOC_EXTENSIONS.has(ext));
}

/**
 * The document's text (every line ending in "\n"); `bytes` is the whole file. CPU-bound (a workbook
 * may hold 64 MiB of XML per sheet): read_file runs it on the CPU pool (read-extract-task.ts).
 * The anydoc formats are not rendered here (read-document.ts asks Hermes).
 */
export async function renderDocument(path: string, bytes: Buffer, options: RenderOptions = { ...DOCUMENTS_0_19, displayPath: path }): Promise<string> {
  const ext = fileExtension(path);
  if (ext === '.ipynb') return notebookText(bytes, options.notebookOutputs, options.displayPath);
  if (ext === '.docx') return withZip(bytes, 'DOCX', (zip) => docxText(zip, options.phoneticSkipped));
  if (ext === '.xlsx') return withZip(bytes, 'XLSX', (zip) => xlsxText(zip, options.phoneticSkipped));
  if (options.sqlite && SQLITE.has(ext)) return sqliteText(bytes);
  throw new ExtractionError(`Unsupported document type: '${path}'`);
}

async function withZip(bytes: Buffer, kind: string, render: (zip: Zip) => Promise<string>): Promise<string> {
  const zip = await Zip.open(bytes, kind);
  try {
    return await render(zip);
  } finally {
    zip.close();
  }
}

