import type { HermesChange } from './changes.js';

// The changes of Hermes' file tools the gateway follows by version (one of the tables of changes.ts).

/** read_file, write_file, patch, search_files (supervisor/tools/files/). */
export const FILE_TOOL_CHANGES = {
  // read_file. Release dates read from upstream: v0.20.5 2026-08-19, v0.21.0 2026-08-31, v0.21.2
  // 2026-09-11. "first run" = no release tag could be tied to the change: 0.22.2 is the first
  // release the tests run that has it.
  readFileDeadEndNotes: {
    since: '0.20.5',
    what: "read_file: an empty file answers with the hint 'File is empty (0 bytes).' and an offset past the end with 'Note: offset N is beyond the end of the file …' (tools/file_operations.py _assemble_read_result; upstream PR #82804, merged 2026-08-09, before v0.20.5)",
  },
  readFileLinesAsCatN: {
    since: '0.22.2',
    what: "read_file numbers a file's own lines (no empty line after the final newline) and counts a last line without one (tools/file_operations.py _add_line_numbers, _assemble_read_result; upstream PR #107798, merged 2026-09-11, the day v0.21.2 was released; first run)",
  },
  readFileDefaultLimit2000: {
    since: '0.21.2',
    what: 'read_file reads 2000 lines when no limit is given, was 500 (tools/file_operations_common.py DEFAULT_READ_LIMIT, tools/file_tools.py READ_FILE_SCHEMA and _handle_read_file; upstream PR #76996 raised the default 2026-08-02, PR #104172 made the dispatched call use it 2026-09-06, before v0.21.2)',
  },
  readFileNotFoundField: {
    since: '0.22.2',
    what: 'read_file answers carry not_found (true only for a missing file) (tools/file_operations_common.py ReadResult; first run)',
  },
  readFileBinaryByBytes: {
    since: '0.22.2',
    what: "read_file decides binary by bytes (a NUL or invalid UTF-8 in the first 1000), refuses with the type named ('Binary file (ELF executable, 36 bytes) — cannot display as text.'), and shows UTF-16 text transcoded (tools/file_operations.py _is_likely_binary_bytes, describe_binary_file, _try_read_utf16; upstream issue #80308; first run)",
  },
  readFileNameRecovery: {
    since: '0.22.2',
    what: 'read_file reads the one unicode-equivalent name (NFC/NFD, no-break spaces, curly quotes) of a missing file with a note, and suggests near-miss spellings (difflib ratio >= 0.8) (tools/file_operations.py _read_file_missing, _unicode_variant_match, _suggest_similar_files; first run)',
  },
  readFileResolvedPaths: {
    since: '0.22.2',
    what: "read_file's messages name the resolved path (a dangling symlink is its missing target) and a directory is 'not a regular file (directory, dangling symlink, FIFO, socket, or device)' (tools/file_tools.py read_file_tool, tools/file_operations.py _not_regular_error; first run)",
  },
  readFileSpecialFileNote: {
    since: '0.22.2',
    what: "read_file answers a FIFO, socket or device by its kind without reading it ('… is a FIFO (named pipe), not a regular file — …') (tools/file_tools.py _special_file_kind; first run)",
  },
  readFileTruncatedLinesFlag: {
    since: '0.22.2',
    what: 'read_file sets truncated_lines when a shown line was cut at max_line_length (tools/file_operations.py _assemble_read_result; first run)',
  },
  readFileConflictBlocks: {
    since: '0.22.2',
    what: 'read_file counts unresolved merge-conflict blocks in a page (conflict_blocks and a _hint) (tools/file_operations_common.py count_conflict_blocks; first run)',
  },
  readDocumentNotebookOutputs: {
    since: '0.22.2',
    what: "read_file shows a notebook's code-cell outputs after each cell (tools/read_extract.py _notebook_outputs; first run)",
  },
  readDocumentPhoneticTextSkipped: {
    since: '0.22.2',
    what: 'read_file leaves ruby guides (w:rt) out of .docx text and phonetic runs (rPh) out of .xlsx strings (tools/read_extract.py _extract_docx, _xlsx_string_text; first run)',
  },
  readDocumentSqlite: {
    since: '0.22.2',
    what: 'read_file shows a .db/.sqlite/.sqlite3 file as its schema, row counts and first rows (tools/read_extract.py _extract_sqlite; first run)',
  },
  readDocumentAnydoc: {
    since: '0.22.2',
    what: 'read_file renders PDF, legacy and OpenXML Office, OpenDocument, RTF and EPUB files as Markdown with firecrawl-anydoc (tools/read_extract.py ANYDOC_EXTENSIONS, extract_document_bytes; first run)',
  },
  readDocumentFailuresReported: {
    since: '0.22.2',
    what: "read_file refuses a binary document it cannot render with the reason ('Cannot read … document extraction failed — …') instead of reading it as a file (tools/file_tools.py _read_extracted_document; first run)",
  },
  readFileDedupByVersion: {
    since: '0.22.2',
    what:
      "read_file's de-duplication compares the file's device, inode, size and mtime/ctime in nanoseconds (0.19: its mtime only), records only a read during which the file did not change, and forgets the region a BLOCKED read refused (tools/file_tools.py read_file_tool, _record_successful_read, tools/file_tools_read_tracking.py _file_metadata; first run)",
  },
  readFileFailedReadsUncounted: {
    since: '0.22.2',
    what: "read_file's failed reads (a missing file, binary content, any error) are neither de-duplicated nor counted as repeated reads (0.19 counts them: a fourth identical failed read is BLOCKED) (tools/file_tools.py read_file_tool: `if _err or result_dict.get(\"is_binary\")` returns before _record_successful_read; first run)",
  },
  readFileBlockedGuardrailMarker: {
    since: '0.22.2',
    what: "read_file's BLOCKED answers to repeated reads carry guardrail_refusal: true (tools/file_tools.py _dedup_stub_or_block and read_file_tool, agent/tool_result_classification.py GUARDRAIL_REFUSAL_KEY; first run)",
  },
  writeFileReadBeforeOverwrite: {
    since: '0.20.6',
    what:
      "write_file refuses to overwrite an existing file the task has not seen in full, unredacted, as it is now (stale_write_blocked), before anything is written; the task's own write or a patch from known content counts as seen (tools/file_tools_write_guards.py _stale_overwrite_blocker, tools/file_tools_read_tracking.py _mark_full_write_baseline; upstream PR #91238, merged 2026-08-21, after v0.20.5 of 2026-08-19)",
  },
  writeFileVerified: {
    since: '0.22.2',
    what: "write_file reads back what it wrote: `verified: true`, or an error when the on-disk sha256 differs (tools/file_operations.py _verify_written_hash; first seen in 0.22.2, the first version the tests run that has it)",
  },
  fileWritesNoCrossProfile: {
    since: '0.22.2',
    what: "write_file and patch no longer advertise `cross_profile` and the cross-profile soft guard is gone; the argument is still accepted and opts out of the sandbox-mirror guard (tools/file_tools.py WRITE_FILE_SCHEMA, tools/file_tools_write_guards.py _check_cross_profile_path; first seen in 0.22.2)",
  },
  fileWriteDocumentGuards: {
    since: '0.22.2',
    what: 'write_file and patch refuse Office/ODF/RTF/EPUB documents and SQLite side files, and overwriting an existing PDF or binary file (tools/file_tools_write_guards.py _check_binary_document_write; first seen in 0.22.2)',
  },
  fileWriteProtectedInstructions: {
    since: '0.22.2',
    what: 'write_file and patch need a human to approve writing AGENTS.md, CLAUDE.md, SOUL.md, .cursorrules or a file directly under a project .hermes/, and refuse without one (tools/file_tools_write_guards.py _check_protected_instruction_write; first seen in 0.22.2)',
  },
  fileWriteSshConfigApproval: {
    since: '0.22.2',
    what: 'write_file and patch need approval to write ~/.ssh/config, and refuse without a human (tools/file_tools_write_guards.py _check_approval_required_write, agent/file_safety.py build_write_approval_paths; first seen in 0.22.2)',
  },
  writeJsonConstants: {
    since: '0.22.2',
    what: 'write_file and patch refuse JSON that introduces NaN or Infinity (tools/file_operations.py _refuse_introduced_json_constant; first seen in 0.22.2)',
  },
  writeLoneSurrogate: {
    since: '0.22.2',
    what: "write_file and patch refuse content with a lone surrogate, after the read-before-overwrite guard, naming the character as Python shows it (tools/file_operations.py ShellFileOperations._reject_unencodable; first seen in 0.22.2)",
  },
  patchStricterFuzzy: {
    since: '0.22.2',
    what: "patch's fuzzy matching: context_aware needs the first, last and every non-blank line 80% similar; ambiguity lists the matches; new texts for an empty, whitespace-only or unchanged old_string; a `note` when a similarity strategy placed the edit; an edit already present is a success with `no_change` (tools/fuzzy_match.py fuzzy_find_and_replace, boundary_note, is_already_applied; tools/file_operations.py patch_replace; first seen in 0.22.2)",
  },
  patchV4aAbsoluteHeaders: {
    since: '0.22.2',
    what: "V4A patches apply their operations in sequence, name every file by its resolved absolute path (diff, files_created, files_deleted, lint), lint no Move, refuse an Add of an existing file, and note approximate hunk matches (tools/patch_parser.py apply_v4a_operations, _validate_operations; tools/file_tools.py _rewrite_v4a_patch_paths_for_host; first seen in 0.22.2)",
  },
  patchReplaceOnlySchema: {
    since: '0.22.2',
    what: "patch's base schema is replace-only (path, old_string, new_string, replace_all); the V4A mode is layered on for OpenAI-family main models only, and the handler takes both from any model (tools/file_tools.py PATCH_SCHEMA, _patch_schema_overrides, _is_openai_family_main; first seen in 0.22.2)",
  },
  searchFilesOrder: {
    since: '0.22.2',
    what: "search_files takes `order` ('discovery', the default: the walk's own order, no sort; 'modified': newest first), lists matching directories beside files, and reports a file search as truncated exactly when more exist, counting at most offset+limit+1 (tools/file_tools.py SEARCH_FILES_SCHEMA, tools/file_operations_search.py _search_files_rg, _search_directories_with_find; upstream issue #54347; first seen in 0.22.2)",
  },
  searchFilesHintField: {
    since: '0.22.2',
    what: 'search_files puts its truncation hint in the JSON as `_hint` instead of text after it (tools/file_tools.py search_tool; upstream issue #90322, fixed by PR #104472 of 2026-09-06, after v0.21.0 of 2026-08-31: the release with it is not established, so first seen in 0.22.2)',
  },
  searchFilesMultiline: {
    since: '0.22.2',
    what: 'search_files turns on multiline matching for a regex with \\n, with a warning that says so (tools/file_operations_search.py _search_with_rg; first seen in 0.22.2)',
  },
  searchFilesZeroMatchProbes: {
    since: '0.22.2',
    what: 'a content search that finds nothing says where the pattern does match: case-insensitively, in hidden or ignored files, or as a literal (tools/file_operations_search.py _zero_match_probe; first seen in 0.22.2)',
  },
} as const satisfies Record<string, HermesChange>;
