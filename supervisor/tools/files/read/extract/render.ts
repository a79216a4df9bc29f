import { fileExtension, SQLITE_EXTENSIONS, type DocumentRules } from '../../common/index.js';
import { notebookText } from './notebook.js';
import { docxText, xlsxText } from './office.js';
import { sqliteText } from './sqlite.js';
import { ExtractionError } from './text.js';
import { Zip } from './zip.js';

// A document's bytes rendered as text, by its extension, as the Hermes followed renders it.

/** How documents render, as the Hermes followed renders them (read/rules.ts `readRules`). */
export interface RenderOptions extends DocumentRules {
  /** The document's path as Hermes names it in a rendering (a notebook's `jq` pointer). */
  displayPath: string;
}

/** Hermes 0.19's documents: what the gateway renders when told nothing else. */
export const DOCUMENTS_0_19: DocumentRules = { notebookOutputs: false, phoneticSkipped: false, sqlite: false, anydoc: false };

/** `bytes`, the document at `path`, as text; ExtractionError when it cannot be rendered. */
export async function renderDocument(path: string, bytes: Buffer, options: RenderOptions = { ...DOCUMENTS_0_19, displayPath: path }): Promise<string> {
  const ext = fileExtension(path);
  if (ext === '.ipynb') return notebookText(bytes, options.notebookOutputs, options.displayPath);
  if (ext === '.docx') return withZip(bytes, 'DOCX', (zip) => docxText(zip, options.phoneticSkipped));
  if (ext === '.xlsx') return withZip(bytes, 'XLSX', (zip) => xlsxText(zip, options.phoneticSkipped));
  if (options.sqlite && SQLITE_EXTENSIONS.has(ext)) return sqliteText(bytes);
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

