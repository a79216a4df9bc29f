import { gt } from '@renovatebot/pep440';
import type { HermesCaller } from '../../../platform/hermes/call.js';
import { hermesSupport, type HermesRelease } from '../../../platform/hermes/release.js';
import type { PathDeps } from '../access/index.js';
import type { DocumentRules, IntegerArgRule } from '../common/index.js';
import type { FileStates, ReadLoopRules } from '../state/index.js';

// What read_file is given and what it follows: its dependencies, its behaviour as the Hermes it
// fronts has it (one flag per change in release.ts), its argument limits and its description.

/** What read_file needs from its host besides paths. */
export interface ReadFileDeps extends PathDeps {
  readFileScanMaxBytes: number;
  /** The gateway's cap on one tool result (`maxOutputChars`): the read budget leaves room under it. */
  maxOutputChars?: number;
  /** The largest file read on the event loop when it is on a local file system (`readFileInlineMaxBytes`). */
  readFileInlineMaxBytes: number;
  /** Whether the catalog serves a tool: images are pointed at vision_analyze only when it does. */
  catalogued?: (name: string) => boolean;
  /** The Hermes followed (release.ts); the newest the gateway knows when absent. */
  release?: HermesRelease;
  /** Calls of Hermes' own functions: its document extractor (read/document.ts); none in a bare composition. */
  hermes?: HermesCaller;
  /** How long Hermes' extractor may take for one document (`readFileDocumentTimeoutSeconds`). */
  readFileDocumentTimeoutSeconds?: number;
  /** The per-task file states (state/): a page served is recorded there. */
  fileStates?: FileStates;
  /** The workers' transport cap (`workerTransportMaxBytes`): what a document handed to Hermes may weigh. */
  workerTransportMaxBytes?: number;
}

/** read_file's behaviour as the Hermes followed has it (read/index.ts `readRules`, one flag per change). */
export interface ReadRules {
  /** The limit when none is given: 500 (0.19), 2000 (readFileDefaultLimit2000). */
  defaultLimit: number;
  /** 'File is empty (0 bytes).' and the past-the-end note (readFileDeadEndNotes). */
  deadEndNotes: boolean;
  /** `not_found` on every ReadResult answer (readFileNotFoundField). */
  notFoundField: boolean;
  /** Binary by bytes, typed refusal, UTF-16 shown transcoded (readFileBinaryByBytes). */
  binaryByBytes: boolean;
  /** Unicode-equivalent names read, near-miss spellings suggested (readFileNameRecovery). */
  nameRecovery: boolean;
  /** Messages name the resolved path; Hermes' not-a-regular-file text (readFileResolvedPaths). */
  resolvedPaths: boolean;
  /** FIFOs, sockets and devices answered by kind (readFileSpecialFileNote). */
  specialFileNote: boolean;
  /** `truncated_lines` when a shown line was cut (readFileTruncatedLinesFlag). */
  truncatedLinesFlag: boolean;
  /** `conflict_blocks` and its `_hint` (readFileConflictBlocks). */
  conflictBlocks: boolean;
  /** A page's text drops one trailing newline before it is numbered (readFileLinesAsCatN). */
  linesAsCatN: boolean;
  /** Which documents render, and how (readDocument* changes). */
  documents: DocumentRules;
  /** A document that fails to render is refused with Hermes' reason, not read as a file (readDocumentFailuresReported). */
  documentFailures: boolean;
  /** Repeated reads: how a file is compared, whether failed reads count (readFileDedupByVersion, readFileFailedReadsUncounted). */
  loop: ReadLoopRules;
  /** BLOCKED answers carry `guardrail_refusal: true` (readFileBlockedGuardrailMarker). */
  blockedMarker: boolean;
}

/** A path to read: as the caller gave it, `~` expanded, absolute, and real (the one opened). */
export interface ReadPath {
  input: string;
  expanded: string;
  absolute: string;
  real: string;
}

export const READ_DEFAULT_OFFSET = 1;

export const READ_MAX_LIMIT = 2000;

/** What read_file does as the Hermes it follows, read once from its release. */
export function readRules(release: HermesRelease): ReadRules {
  return {
    defaultLimit: release.has('readFileDefaultLimit2000') ? 2000 : 500,
    deadEndNotes: release.has('readFileDeadEndNotes'),
    notFoundField: release.has('readFileNotFoundField'),
    binaryByBytes: release.has('readFileBinaryByBytes'),
    nameRecovery: release.has('readFileNameRecovery'),
    resolvedPaths: release.has('readFileResolvedPaths'),
    specialFileNote: release.has('readFileSpecialFileNote'),
    truncatedLinesFlag: release.has('readFileTruncatedLinesFlag'),
    conflictBlocks: release.has('readFileConflictBlocks'),
    linesAsCatN: release.has('readFileLinesAsCatN'),
    documents: {
      notebookOutputs: release.has('readDocumentNotebookOutputs'),
      phoneticSkipped: release.has('readDocumentPhoneticTextSkipped'),
      sqlite: release.has('readDocumentSqlite'),
      anydoc: release.has('readDocumentAnydoc'),
    },
    documentFailures: release.has('readDocumentFailuresReported'),
    loop: { byVersion: release.has('readFileDedupByVersion'), failedReadsCounted: !release.has('readFileFailedReadsUncounted') },
    blockedMarker: release.has('readFileBlockedGuardrailMarker'),
  };
}

/**
 * Hermes `normalize_read_pagination`'s repair and clamps, applied before the schema (common/pagination.ts),
 * for the Hermes versions the tests run (0.19.0 to 0.22.2) and a Hermes of unknown version. A
 * Hermes newer than the newest one run (v0.23.5 reads a negative offset as the file's last lines,
 * rules that could not be read: docs/hermes-versions.md#read_file) keeps the repair of numeric
 * strings and fractions, but an offset below 1 stays INVALID_ARGUMENTS: raising it to 1 would show
 * the first lines where that Hermes shows the last.
 */
export function readIntegerArgs(release: HermesRelease): Record<string, IntegerArgRule> {
  const version = release.version;
  const newerThanRun = version !== undefined && hermesSupport().run.every((run) => gt(version, run));
  return { offset: newerThanRun ? {} : { min: 1 }, limit: { min: 1, max: READ_MAX_LIMIT } };
}

export const visionServed = (deps: ReadFileDeps) => deps.catalogued?.('vision_analyze') === true;

export function limitDescription(rules: ReadRules): string {
  return rules.defaultLimit === 2000
    ? 'Maximum number of lines to read (default: 2000, max: 2000). Reads are additionally capped at a ~100K-character budget with a next_offset continuation.'
    : 'Maximum number of lines to read (default: 500, max: 2000)';
}

const DESCRIPTION_START =
  'Read a text file with line numbers and pagination. Use this instead of cat/head/tail in terminal. ' +
  "Output format: 'LINE_NUM|CONTENT'. Suggests similar filenames if not found. Use offset and limit for large files. " +
  'Reads exceeding ~100K characters are truncated on a line boundary and return a next_offset; continue with offset to read the rest. ';

/**
 * The release's description: Hermes' own (READ_FILE_SCHEMA), naming vision_analyze only when the
 * catalog serves it and, after 0.19, the formats Hermes' extractor renders only when a Hermes with
 * one is there to call (Hermes states them unconditionally; its hosted-OCR "PDF (scanned or text)"
 * never, as the gateway hands no document to a hosted service).
 */
export function description(deps: ReadFileDeps, rules: ReadRules): string {
  if (!rules.documents.sqlite) {
    return (
      DESCRIPTION_START +
      'Jupyter notebooks (.ipynb), Word documents (.docx), and Excel workbooks (.xlsx) are auto-extracted to readable text. ' +
      `NOTE: Cannot read images or other binary files${visionServed(deps) ? ' — use vision_analyze for images' : ''}.`
    );
  }
  const documents =
    rules.documents.anydoc && deps.hermes?.available === true
      ? '.ipynb, Office (.docx/.xlsx/.pptx and legacy .doc/.ppt/.xls), PDF (text layer), OpenDocument, RTF, EPUB, SQLite (.db/.sqlite: schema, row counts, first rows)'
      : '.ipynb, Office (.docx/.xlsx), SQLite (.db/.sqlite: schema, row counts, first rows)';
  return `${DESCRIPTION_START}Documents auto-extract to readable text: ${documents}. Cannot read images/binary${visionServed(deps) ? ' — use vision_analyze for images' : ''}.`;
}
