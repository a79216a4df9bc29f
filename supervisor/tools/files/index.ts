import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { HermesCaller } from '../../platform/hermes/call.js';
import type { HermesRelease } from '../../platform/hermes/release.js';
import type { FileAccess } from '../../platform/roots.js';
import { authFileSpellings, type AuthFilePaths } from './access/index.js';
import type { FileStates } from './state/index.js';
import { patchTool } from './patch/index.js';
import { readFileTool } from './read/index.js';
import { searchFilesTool } from './search/index.js';
import { writeFileTool } from './write/index.js';

// The four native Hermes file tools — read_file, write_file, patch, search_files — re-implemented
// in TypeScript with Hermes' parameter names, defaults, limits and result shapes
// (tools/file_tools.py and friends). One folder per tool, each entered through its index.ts:
//
//   access/   the one way to a path (resolveAccess): validation, resolution against the owner's cwd,
//             real paths, HERMES_MCP_ROOTS confinement, Hermes' read rules and secret-bearing files
//   read/     read_file: pagination, `N|line` gutter, caps, refusals; its text read and byte scan,
//             documents (extract/ renders notebooks, Office files, SQLite)
//   write/    write_file: write refusals (blocks.ts), gutter-text refusal, lint, atomic writes
//   patch/    patch: replace mode, V4A (v4a/), the fuzzy strategy chain (fuzzy/)
//   search/   search_files: content (RegExp) and file-name (glob) search, the bounded walk
//   state/    per-task file state: write_file's read-before-overwrite guard, staleness warnings,
//             repeated reads; a file's identity (version.ts)
//   common/   what the folders share: binary detection, text encodings, disk writes, failures,
//             which Hermes the tools follow (follows.ts)
//
// Error policy (one rule for all four tools): every failure is THROWN as a GatewayError with a
// stable code, never returned as a Hermes-style `{"error": "..."}` success result. The message is
// Hermes' own text where upstream has one; Hermes' extra fields ride along as error details
// (`similar_files`, `total_lines`/`file_size`, `is_binary`, `success: false` for patch, …):
//
//   PATH_OUTSIDE_ROOTS a path that leads outside HERMES_MCP_ROOTS (roots mode), or a relative path
//                      while the owner's cwd is outside them
//   INVALID_PATH       a path with a NUL byte, over PATH_MAX, or with a component over NAME_MAX
//   INVALID_ARGUMENTS  missing/invalid arguments (replace mode without path/old_string/new_string,
//                      unknown mode/target, invalid regex or glob, gutter text or a lone surrogate
//                      as content, empty/identical old_string)
//   FILE_NOT_FOUND     missing file (`similar_files`) or search path (`similar_paths`)
//   FILE_BLOCKED       device paths, Hermes credential/internal files, project .env files,
//                      sensitive or credential write targets, the cross-profile soft guard,
//                      a read refused by the OS (EACCES/EPERM)
//   FILE_BINARY        binary files and images (by content: Hermes' ReadResult fields, `is_binary`)
//   FILE_NOT_REGULAR   directories, FIFOs, sockets, devices (read_file after Hermes 0.19: Hermes'
//                      `success: false` and `note` for a FIFO, socket or device)
//   FILE_TOO_LARGE     a patch target over 10 MiB
//   FILE_WRITE_FAILED  an I/O failure while writing (a V4A patch is rolled back first), or (Hermes
//                      0.22) the bytes read back are not the bytes written
//   FILE_STALE_WRITE   (Hermes 0.20.6+) write_file over an existing file this task has not seen in
//                      full as it is now (`stale_write_blocked`, `path`, `resolved_path`)
//   FILE_READ_REPEATED read_file of a region this session read again and again (Hermes' "BLOCKED: …",
//                      `path`, `already_read`; after 0.19 `guardrail_refusal`)
//   PATCH_NO_MATCH     "Could not find …" (with the "Did you mean one of these sections?" snippet)
//   PATCH_AMBIGUOUS    several matches without replace_all
//   PATCH_INVALID      unparsable V4A, `..` in a V4A header, failed V4A validation, the fuzzy
//                      guards (escape drift, suspicious indentation)
//   CANCELLED          ctx.signal aborted (search walk, or before a write)
//   INTERNAL_ERROR     any other unexpected I/O error while reading
//
// Successful results therefore never carry `error`. Relative paths resolve against
// `deps.cwdFor(ctx.owner.id)` — the owner's cwd as the owner registry keeps it (where its last
// terminal command ended), or the default cwd for an owner-less (per-request) call; in roots mode
// only while that cwd is inside a root — and `~` is the service user's home.
//
// Per-task state (state/) serves write_file's read-before-overwrite guard, the staleness
// warnings, and read_file's repeated-read answers (the "unchanged" stub, the warning, BLOCKED; for
// sessions and session tokens). Still left out: repeat-search warnings/blocks and patch failure
// counters (state/ is where they would live). Also not done: LSP
// diagnostics and shell linters (lint says so; Python and TOML are checked by Hermes' own linters,
// write/lint.ts, JSON and YAML by the gateway, and JSON/YAML/TOML refused before writing when they would
// not parse), HERMES_WRITE_SAFE_ROOT, and ripgrep itself
// (search is native TypeScript; see search/index.ts). read_file follows the Hermes fronted
// (`release`): after 0.19 it also shows UTF-16 text transcoded and retries unicode-equivalent names.

interface FileToolDeps {
  hermesHome: string;
  /** Whether the catalog serves a tool (vision_analyze), so read_file points at it only then. */
  catalogued?: (name: string) => boolean;
  /** The owner's working directory (the owner registry's: where its last terminal command ended); relative paths resolve against it. */
  cwdFor(ownerId: string): string;
  /** `HERMES_MCP_FILE_ACCESS` and `HERMES_MCP_ROOTS` (access/). */
  access: FileAccess;
  /** The most read_file reads of one file per call (`readFileScanMaxBytes`). */
  readFileScanMaxBytes: number;
  /** The largest file read_file reads on the event loop, when it is on a local file system (`readFileInlineMaxBytes`). */
  readFileInlineMaxBytes: number;
  /** The gateway's cap on one tool result (`maxOutputChars`); read_file's budget fits under it. */
  maxOutputChars?: number;
  /** PATH at start-up (`helperSearchPath`), where write_file/patch's lint step looks for linters. */
  searchPath?: string;
  /** The Hermes the tools follow (release.ts); the newest the gateway knows when absent. */
  release?: HermesRelease;
  /** Calls of Hermes' own functions (read_file's document extractor); none in a bare composition. */
  hermes?: HermesCaller;
  /** How long Hermes' document extractor may take for one document (`readFileDocumentTimeoutSeconds`). */
  readFileDocumentTimeoutSeconds?: number;
  /** How long write_file/patch's syntax check of a Python or TOML file may take (`writeLintTimeoutSeconds`). */
  writeLintTimeoutSeconds?: number;
  /** The largest Python or TOML text write_file/patch syntax-check (`writeLintMaxBytes`). */
  writeLintMaxBytes?: number;
  /** The workers' transport cap (`workerTransportMaxBytes`), which bounds a document handed to Hermes. */
  workerTransportMaxBytes?: number;
  /** search_files' walk budget (`searchFilesMaxEntries`, `searchFilesTimeoutSeconds`). */
  searchFilesMaxEntries?: number;
  searchFilesTimeoutSeconds?: number;
  /** The largest Hermes config.yaml read for the write guards (`hermesConfigMaxBytes`). */
  hermesConfigMaxBytes?: number;
  /** The authentication edge's files when authentication is on: no tool reads or writes them. */
  authFiles?: AuthFilePaths;
  /** Per-task file states (state/), for write_file's read-before-overwrite guard and read_file's repeated reads. */
  fileStates?: FileStates;
}

/**
 * read_file, write_file, patch, search_files — in that order. write_file gets Hermes' dispatch
 * coercion here (supervisor/core/hermes-args.ts; `cross_profile: "true"` is true), the others where
 * they are defined.
 */
export function fileTools(deps: FileToolDeps): ToolDefinition[] {
  const { authFiles, ...rest } = deps;
  const tools = { ...rest, authFiles: authFileSpellings(authFiles) };
  return [readFileTool(tools), withHermesArgumentRepair(writeFileTool(tools)), patchTool(tools), searchFilesTool(tools)];
}
