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
const FILE_TOOL_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** terminal, process_manage, execute_code's terminal (supervisor/tools/processes/, execute-code/). */
const TERMINAL_CHANGES = {} as const satisfies Record<string, HermesChange>;

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
const HONCHO_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Hermes' tool server (supervisor/tools/hermes-tools/) and its MCP client (hermes-mcp-lsp). */
const TOOL_SERVER_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Hermes' API server behind the agent-task tools (supervisor/tools/agent-tasks/). */
const API_SERVER_CHANGES = {} as const satisfies Record<string, HermesChange>;

/** Every change the gateway follows by version. */
export const HERMES_CHANGES = {
  ...FILE_TOOL_CHANGES,
  ...TERMINAL_CHANGES,
  ...SESSION_SEARCH_CHANGES,
  ...CRON_CHANGES,
  ...HONCHO_CHANGES,
  ...TOOL_SERVER_CHANGES,
  ...API_SERVER_CHANGES,
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
