import { constants as fsConstants } from 'node:fs';
import { readFile as readWholeFile, stat as statAsync } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { cpuTask, runOnCpuPool } from '../../platform/thread-pool/pool.js';
import { READ_FLAGS, fileExtension } from './fs-util.js';
import { MAX_DOCUMENT_BYTES, renderDocument } from './read-extract.js';
import type { default as readExtractTask, ExtractResult } from './read-extract-task.js';

// read_file's documents: a notebook, Word document or Excel workbook read whole and rendered as
// text (read-extract.ts), a small notebook inline, anything else on the CPU pool. read-file.ts
// pages the text as Hermes does.

/**
 * A notebook, Word document or Excel workbook as text (Hermes extracts before its binary-extension guard), or null
 * when it is not one that renders (missing, not a regular file, over the scan budget, malformed):
 * the ordinary read then answers for it.
 */
export async function extractedDocument(path: string, maxBytes: number, signal: AbortSignal): Promise<{ text: string; size: number } | null> {
  let bytes: Buffer;
  try {
    const st = await statAsync(path);
    if (!st.isFile() || st.size > Math.min(maxBytes, MAX_DOCUMENT_BYTES)) return null;
    bytes = await readWholeFile(path, { flag: READ_FLAGS | (fsConstants.O_NOFOLLOW ?? 0) });
  } catch {
    return null; // the file went away or cannot be read: the ordinary read answers
  }
  const size = bytes.length;
  const text = await documentText(path, bytes, signal);
  return text === null ? null : { text, size };
}

const EXTRACT = cpuTask<typeof readExtractTask>(new URL('./read-extract-task.js', import.meta.url));
/**
 * Notebooks up to this size render inline; anything larger, and every Word document and workbook
 * (a small archive can inflate to 64 MiB per member), renders on the CPU pool. Measured: the pool's
 * round trip (bytes over, text back) adds about 0.2 ms to a 4 KiB notebook that renders in 0.1 ms,
 * and the two cross near 8-16 KiB (about 1 ms either way); past that the pool is cheaper for the
 * gateway, since every other client's request waits for an inline render.
 */
const INLINE_NOTEBOOK_MAX_BYTES = 16 * 1024;

/** The document rendered (on the CPU pool unless it is a small notebook), or null when it does not render. */
async function documentText(path: string, bytes: Buffer, signal: AbortSignal): Promise<string | null> {
  if (fileExtension(path) === '.ipynb' && bytes.length <= INLINE_NOTEBOOK_MAX_BYTES) {
    try {
      return await renderDocument(path, bytes);
    } catch {
      return null; // an ExtractionError (or any failure to render): the ordinary read answers
    }
  }
  // readFile gives the file its own ArrayBuffer: moved to the thread, not copied.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  let result: ExtractResult;
  try {
    result = await runOnCpuPool(EXTRACT, { path, bytes }, signal, own ? [bytes.buffer as ArrayBuffer] : undefined);
  } catch (e) {
    if (signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'read_file was cancelled; its document rendering was stopped');
    if ((e as Error)?.message === 'Task queue is at limit') throw new GatewayError(ErrorCode.BUSY, 'too many documents are being rendered; try again shortly');
    return null; // the task failed otherwise (its thread died): as for a document that does not render
  }
  return result.ok ? result.text : null; // an ExtractionError: the ordinary read answers
}
