import { renderDocument, type RenderOptions } from './render.js';
import { ExtractionError } from './text.js';

// Runs in a thread of the supervisor's CPU pool (platform/thread-pool/pool.ts): a notebook, Word document, Excel
// workbook or SQLite database rendered as text for read_file, off the event loop (a workbook can
// hold 64 MiB of XML per sheet). The file's bytes come in; its text, or why it cannot be rendered,
// goes out.

export interface ExtractInput {
  path: string;
  /** The whole file (a Buffer arrives here as a plain Uint8Array). */
  bytes: Uint8Array;
  /** How the Hermes followed renders documents. */
  options: RenderOptions;
}

export type ExtractResult = { ok: true; text: string } | { ok: false; message: string };

export default async function readExtractTask(input: ExtractInput): Promise<ExtractResult> {
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  try {
    return { ok: true, text: await renderDocument(input.path, bytes, input.options) };
  } catch (e) {
    if (e instanceof ExtractionError) return { ok: false, message: e.message };
    throw e;
  }
}
