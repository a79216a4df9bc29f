import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import { cpuTask, runOnCpuPool } from '../../../platform/thread-pool/pool.js';
import { ANYDOC_EXTENSIONS, fileExtension, isNotFound, READ_FLAGS } from '../common/index.js';
import { type ExtractResult, type ExtractTask, MAX_DOCUMENT_BYTES, renderDocument, type RenderOptions } from './extract/index.js';
import { defaultLimits } from '../../../../shared/limits.js';
import { maxFrameBytes } from '../../../../shared/worker-protocol/caps.js';
import { splitLines } from './extract/index.js';
import { fitReadBudget, formatCount, numbered, pageLines } from './format.js';
import type { ReadFileDeps, ReadRules } from './rules.js';

// read_file's documents: the file read whole and rendered as text, which read/index.ts pages as
// Hermes does. Notebooks, Word documents, Excel workbooks and (after Hermes 0.19) SQLite databases
// are rendered in TypeScript (read/extract/): a small notebook inline, anything else on the CPU
// pool. The formats Hermes after 0.19 converts with firecrawl-anydoc (PDF, Office, OpenDocument,
// RTF, EPUB) are rendered by Hermes' own extractor (tools/read_extract.py
// `extract_document_bytes`) in a Hermes call worker (platform/hermes/call.ts), given the bytes the
// gateway read under its own path rules: Hermes opens no path, and without a Hermes that has the
// extractor such a read is refused saying what it needs (never shown as the file's raw bytes).

/** What a document read came to. */
export type DocumentOutcome =
  /** The document's text, and its size in bytes. */
  | { kind: 'text'; text: string; size: number }
  /** Why it could not be rendered, in Hermes' words (its ExtractionError, or the read's own failure). */
  | { kind: 'failed'; message: string };

/** What the documents need besides the file. */
export interface DocumentDeps {
  /** The most one read reads of a file (`readFileScanMaxBytes`). */
  readFileScanMaxBytes: number;
  /** Calls of Hermes' own functions (its extractor for the anydoc formats); none in a bare composition. */
  hermes?: HermesCaller;
  /** How long Hermes' extractor may take for one document (`readFileDocumentTimeoutSeconds`). */
  documentTimeoutMs: number;
  /** The most bytes a document sent to Hermes' extractor may have (what fits a worker frame). */
  documentTransportMaxBytes: number;
}

/** Hermes `_not_regular_error`'s text. */
const notRegularText = (path: string) =>
  `Cannot read '${path}': not a regular file (directory, dangling symlink, FIFO, socket, or device). Reading it could block indefinitely.`;

/**
 * The whole file, as Hermes' `read_file_bytes(path, max_bytes=MAX_DOCUMENT_BYTES)` reads it: its
 * failures in Hermes' words. The descriptor is opened without following a swapped-in symlink and
 * without waiting on a FIFO, and judged by its own fstat.
 */
async function documentBytes(path: string, maxBytes: number): Promise<{ bytes: Buffer } | { failure: string }> {
  let handle;
  try {
    handle = await open(path, READ_FLAGS | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | null)?.code;
    if (isNotFound(e)) return { failure: `File not found: ${path}` };
    if (code === 'ELOOP') return { failure: notRegularText(path) };
    return { failure: `Failed to read binary file: ${(e as Error).message}` };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { failure: notRegularText(path) };
    const limit = Math.min(maxBytes, MAX_DOCUMENT_BYTES);
    if (st.size > limit) return { failure: `File is too large (${formatCount(st.size)} bytes, limit is ${formatCount(limit)})` };
    return { bytes: await handle.readFile() };
  } catch (e) {
    return { failure: `Failed to read binary file: ${(e as Error).message}` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The document at `path` (its real path, the one checked) rendered as the Hermes followed renders
 * it, or why it could not be. Throws a GatewayError only for what the gateway itself cannot do: no
 * Hermes extractor for an anydoc format, a document too large to hand to it, a call that failed,
 * timed out or was cancelled, a CPU pool that is busy.
 */
export async function readDocument(deps: DocumentDeps, path: string, input: string, options: RenderOptions, signal: AbortSignal): Promise<DocumentOutcome> {
  const read = await documentBytes(path, deps.readFileScanMaxBytes);
  if ('failure' in read) return { kind: 'failed', message: read.failure };
  const { bytes } = read;
  if (options.anydoc && ANYDOC_EXTENSIONS.has(fileExtension(path))) return hermesExtraction(deps, path, input, bytes, signal);
  const size = bytes.length; // taken first: the bytes move to the CPU pool's thread, leaving this view empty
  const rendered = await documentText(path, bytes, options, signal);
  return rendered.ok ? { kind: 'text', text: rendered.text, size } : { kind: 'failed', message: rendered.message };
}

/** "Cannot read '<input>' (.pdf): <what>. Use terminal utilities to inspect or convert the file." */
function cannotRead(code: ErrorCode, input: string, path: string, what: string, details?: Record<string, unknown>): GatewayError {
  return new GatewayError(code, `Cannot read '${input}' (${fileExtension(path)}): ${what}. Use terminal utilities to inspect or convert the file.`, details);
}

/** Hermes' own extractor on the bytes, in a Hermes call worker (workers/hermes-call/documents.py). */
async function hermesExtraction(deps: DocumentDeps, path: string, input: string, bytes: Buffer, signal: AbortSignal): Promise<DocumentOutcome> {
  if (!deps.hermes?.available) {
    throw cannotRead(ErrorCode.HERMES_AGENT_NOT_INSTALLED, input, path, "rendering this document needs Hermes Agent's own document extractor, and no Hermes Agent was found (set HERMES_AGENT_PYTHON to its interpreter)");
  }
  if (bytes.length > deps.documentTransportMaxBytes) {
    throw cannotRead(
      ErrorCode.FILE_TOO_LARGE,
      input,
      path,
      `the document is ${formatCount(bytes.length)} bytes, more than the ${formatCount(deps.documentTransportMaxBytes)} bytes the gateway hands to Hermes' document extractor (HERMES_MCP_WORKER_TRANSPORT_MAX_BYTES)`,
      { file_size: bytes.length },
    );
  }
  let value: unknown;
  try {
    value = await deps.hermes.call('documents', 'extract', { path, data: bytes.toString('base64') }, { timeoutMs: deps.documentTimeoutMs, signal });
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    if (e.code === ErrorCode.HERMES_CALL_UNSUPPORTED) {
      throw cannotRead(e.code, input, path, `rendering this document needs Hermes Agent's document extractor (tools/read_extract.py extract_document_bytes, Hermes 0.22 and later), which the Hermes Agent found does not have (${e.message})`);
    }
    throw cannotRead(e.code, input, path, e.message, e.details);
  }
  const answer = (typeof value === 'object' && value !== null ? value : {}) as { text?: unknown; refused?: unknown };
  if (typeof answer.text === 'string') return { kind: 'text', text: answer.text, size: bytes.length };
  const refused = typeof answer.refused === 'string' ? answer.refused : `an answer without text: ${JSON.stringify(value)}`;
  // Hermes' extractor calls a format unsupported when it cannot load its converter (firecrawl-anydoc).
  if (refused.startsWith('Unsupported document type')) {
    throw cannotRead(
      ErrorCode.HERMES_CALL_UNSUPPORTED,
      input,
      path,
      "rendering this document needs Hermes' document converter (firecrawl-anydoc), which the Hermes Agent found cannot load (`hermes pm repair` restores it)",
    );
  }
  return { kind: 'failed', message: refused };
}

const EXTRACT = cpuTask<typeof ExtractTask>(new URL('./extract/task.js', import.meta.url));
/**
 * Notebooks up to this size render inline; anything larger, and every Word document, workbook and
 * database (a small archive can inflate to 64 MiB per member), renders on the CPU pool. Measured:
 * the pool's round trip (bytes over, text back) adds about 0.2 ms to a 4 KiB notebook that renders
 * in 0.1 ms, and the two cross near 8-16 KiB (about 1 ms either way); past that the pool is cheaper
 * for the gateway, since every other client's request waits for an inline render.
 */
const INLINE_NOTEBOOK_MAX_BYTES = 16 * 1024;

/** The document rendered in TypeScript (on the CPU pool unless it is a small notebook), or why not. */
async function documentText(path: string, bytes: Buffer, options: RenderOptions, signal: AbortSignal): Promise<ExtractResult> {
  if (fileExtension(path) === '.ipynb' && bytes.length <= INLINE_NOTEBOOK_MAX_BYTES) {
    try {
      return { ok: true, text: await renderDocument(path, bytes, options) };
    } catch (e) {
      return { ok: false, message: (e as Error).message }; // an ExtractionError (or any failure to render)
    }
  }
  // readFile gives the file its own ArrayBuffer: moved to the thread, not copied.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  try {
    return await runOnCpuPool(EXTRACT, { path, bytes, options }, signal, own ? [bytes.buffer as ArrayBuffer] : undefined);
  } catch (e) {
    if (signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'read_file was cancelled; its document rendering was stopped');
    if ((e as Error)?.message === 'Task queue is at limit') throw new GatewayError(ErrorCode.BUSY, 'too many documents are being rendered; try again shortly');
    return { ok: false, message: `the document could not be rendered (${(e as Error)?.message ?? String(e)})` }; // its thread died
  }
}

/** How long Hermes' extractor may take when no limit was configured (policy/default-limits.json's). */
const DOCUMENT_TIMEOUT_SECONDS = 60;

/** A call frame's room besides the base64 of the document (its type, id, module, op and path). */
const CALL_FRAME_ROOM = 8192;

/** The documents' dependencies, from read_file's. */
export function documentDeps(deps: ReadFileDeps): DocumentDeps {
  const frame = maxFrameBytes(deps.workerTransportMaxBytes ?? defaultLimits().workerTransportMaxBytes);
  return {
    readFileScanMaxBytes: deps.readFileScanMaxBytes,
    ...(deps.hermes ? { hermes: deps.hermes } : {}),
    documentTimeoutMs: (deps.readFileDocumentTimeoutSeconds ?? DOCUMENT_TIMEOUT_SECONDS) * 1000,
    documentTransportMaxBytes: Math.max(0, Math.floor(((frame - CALL_FRAME_ROOM) * 3) / 4)),
  };
}

/** Hermes' answer for an extracted document: its lines paged and numbered, `extracted_document: true`. */
export function documentPage(text: string, size: number, offset: number, limit: number, maxJson: number, rules: ReadRules): Record<string, unknown> {
  const lines = splitLines(text);
  const end = offset + limit - 1;
  const page = lines.slice(offset - 1, end);
  const result: Record<string, unknown> = { content: '', total_lines: lines.length, file_size: size, truncated: lines.length > end, extracted_document: true };
  if (result.truncated) result.hint = `Use offset=${end + 1} to continue reading (showing ${offset}-${Math.min(end, lines.length)} of ${lines.length} lines)`;
  // Upstream numbers the page only when its text is not empty (a page of one empty line shows nothing).
  if (page.join('\n') !== '') fitReadBudget(result, numbered(pageLines(page, rules), offset), offset, lines.length, maxJson, rules.truncatedLinesFlag);
  return result;
}
