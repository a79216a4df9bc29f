// The shapes session_search reads out of Hermes' state.db (hermes_state.py's sessions and
// messages tables) and the search options over them.

export interface SessionRow {
  id: string;
  source: string | null;
  model: string | null;
  title: string | null;
  started_at: number | null;
  parent_session_id: string | null;
  end_reason: string | null;
}

export interface MessageRow {
  id: number;
  session_id: string;
  role: string;
  content: unknown;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  timestamp: number;
}

export interface SearchHit {
  id: number;
  session_id: string;
  role: string;
  snippet: string | null;
  source: string | null;
  model: string | null;
  session_started: number | null;
}

export interface MessagesAround {
  window: MessageRow[];
  messages_before: number;
  messages_after: number;
}

export interface AnchoredView extends MessagesAround {
  bookend_start: MessageRow[];
  bookend_end: MessageRow[];
}

export interface BrowseRow {
  id: string;
  title: string | null;
  source: string | null;
  started_at: number | null;
  message_count: number | null;
  preview_raw: string | null;
  last_active: number | null;
  end_reason: string | null;
}

export interface SearchOptions {
  roles: string[];
  excludeSources: readonly string[];
  limit: number;
  sort: 'newest' | 'oldest' | undefined;
  /** Sessions started at or after this unix time (Hermes 0.22's `after`). */
  afterTs?: number;
  /** Sessions started before this unix time (Hermes 0.22's `before`). */
  beforeTs?: number;
}

/** Which of Hermes' search routes the followed Hermes has (hermes_state_search.py; none in 0.19.0). */
export interface SearchRoutes {
  /** A role_filter naming `tool` scans the messages table by LIKE (`_search_messages_like_fallback`). */
  toolLikeScan: boolean;
  /** A Latin miss is retried on the trigram index. */
  substringRetry: boolean;
  /** A multi-term miss is retried with its terms ORed (`_or_relaxed_query`). */
  orRelaxed: boolean;
  /** CJK tokens lose a trailing `*` (`_strip_cjk_wildcards`). */
  cjkWildcards: boolean;
}
