// read_file's document-to-text extraction, as Hermes' tools/read_extract.py does it: Jupyter
// notebooks (.ipynb), Word documents (.docx) and Excel workbooks (.xlsx) are rendered as text, and
// as Hermes after 0.19 renders them also SQLite databases (.db, .sqlite, .sqlite3), which read_file
// then pages and numbers like any file. A document that cannot be rendered throws ExtractionError
// (read_file then answers as the Hermes followed: Hermes' failure text, or the ordinary read).
// The formats Hermes converts with firecrawl-anydoc (PDF, legacy and OpenXML Office, OpenDocument,
// RTF, EPUB) are not rendered here: Hermes' own extractor renders them (read/document.ts).
//
// render.ts picks the renderer by extension; notebooks are read in notebook.ts, SQLite in sqlite.ts,
// Word and Excel documents in office.ts (their ZIP and XML in zip.ts and xml.ts, whose libraries
// load on first use). task.ts runs a rendering on the CPU pool.

export { DOCUMENTS_0_19, renderDocument, type RenderOptions } from './render.js';
export type { default as ExtractTask, ExtractResult } from './task.js';
export { ExtractionError, splitLines } from './text.js';
export { MAX_MEMBER_BYTES } from './zip.js';

/** The largest document read_file renders. */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
