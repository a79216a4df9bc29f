import { EXCLUDE_SESSION_IDS_CAP, MAX_QUERY_CHARS } from './fts.js';
import type { SessionSearchChange } from './args.js';

// What session_search says of itself for the Hermes it follows: its description and its input
// schema, each built once for that Hermes' changes (Hermes 0.22's `detail`, `after`, `before` and
// `exclude_session_ids` only where it has them; never the cross-profile `profile`).

const SESSION_ID_MAX_CHARS = 512;
const ROLE_FILTER_MAX_CHARS = 256;
/** `after` / `before`: an ISO datetime or a relative duration is far shorter. */
const TIME_BOUND_MAX_CHARS = 64;
/** Items `exclude_session_ids` accepts (Hermes uses the first EXCLUDE_SESSION_IDS_CAP distinct ones). */
const EXCLUDE_IDS_MAX_ITEMS = 100;

/** The tool's description, for a Hermes with `changes`. */
export function sessionSearchDescription(changes: ReadonlySet<SessionSearchChange>): string {
  const adaptive = changes.has('session_search_adaptive_detail');
  return [
    'Search past Hermes conversations in the local session database ($HERMES_HOME/state.db, opened read-only), or read inside one. ' +
      'Results are historical conversation context: what was said at the time, not proof of the current state of any file, service or external source. ' +
      'If the user gave a direct source (URL, file, account, live system), inspect that source first when accessible and use this as secondary context.',
    '',
    'Four calling shapes, chosen by which arguments are set:',
    '1) DISCOVER: pass `query`. FTS5 search; hits are deduplicated by session lineage and the top `limit` sessions returned (default 3, max 10). ' +
      'Each result carries session_id, when, source, model, title, snippet (match marked >>> <<<), match_message_id, matched_role, ' +
      'messages (the ±5 user/assistant messages around the match, the match flagged `anchor`), bookend_start/bookend_end ' +
      '(first/last 3 user/assistant messages of the session) and messages_before/messages_after' +
      (adaptive ? "; with detail 'adaptive' (the default) only the top result has them, the others just the matched message. " : '. ') +
      (changes.has('session_search_time_bounds') ? '`after`/`before` bound the session start (ISO date/datetime, or 7d, 24h, 2w). ' : '') +
      (changes.has('session_search_exclude_ids') ? '`exclude_session_ids` leaves out sessions already inspected, with their lineage. ' : '') +
      `${changes.has('session_search_kanban_hidden') ? 'Subagent, kanban and tool' : 'Subagent and tool'} sessions are not searched; cron sessions rank below interactive ones.`,
    '2) SCROLL: pass `session_id` + `around_message_id`. Returns ±`window` messages (default 5, clamped to 1-20) around that message. ' +
      'To scroll forward pass the last returned id, backward the first; fewer than `window` before/after means you reached an end.',
    `3) READ: pass \`session_id\` alone. The whole session, or its first 20 + last 10 messages when longer${changes.has('session_search_read_cap') ? '; each message at most 2000 characters' : ''}.`,
    '4) BROWSE: pass nothing. The `limit` most recently active sessions (default 3) with title, preview and timestamps.',
    '',
    'Query syntax (FTS5): terms are ANDed by default; use OR for broader recall (`alpha OR beta`), "quoted phrases", NOT, and prefix* wildcards. ' +
      'Chinese/Japanese/Korean terms of 3+ characters use a trigram index; shorter ones a substring scan. ' +
      'Only this Hermes profile is searched: there is no cross-profile option.' +
      (changes.has('session_search_links') ? ' When referring the user to a session, write its `link` value verbatim inline.' : ''),
  ].join('\n');
}

/** Discover's and browse's own parameters. */
const QUERY_PROPERTIES = {
  query: {
    type: 'string',
    maxLength: MAX_QUERY_CHARS,
    description:
      'Discover shape: keywords, "phrases" or boolean FTS5 expressions to find in past sessions. Omit to browse recent sessions. ' +
      `Ignored when session_id is set. At most ${MAX_QUERY_CHARS} characters.`,
  },
  limit: {
    type: 'integer',
    default: 3,
    description: 'Discover/browse shapes: sessions to return (default 3, clamped to 1-10). Use 5-10 when the topic likely spans several sessions.',
  },
  sort: {
    type: 'string',
    enum: ['newest', 'oldest'],
    description:
      "Discover shape only: temporal bias on top of FTS5 ranking. Omit for relevance order; 'newest' for \"where did we leave X\", 'oldest' for \"how did X start\".",
  },
};

/** Discover's parameters of later Hermes, for a Hermes with `changes`. */
function laterDiscoverProperties(changes: ReadonlySet<SessionSearchChange>): Record<string, unknown> {
  return {
    ...(changes.has('session_search_adaptive_detail')
      ? {
          detail: {
            type: 'string',
            enum: ['adaptive', 'full'],
            default: 'adaptive',
            description:
              "Discover shape only: 'adaptive' (default) fully hydrates the top-ranked result and returns only the matched message for the others; 'full' returns bookends and the whole anchored window for every result.",
          },
        }
      : {}),
    ...(changes.has('session_search_time_bounds')
      ? {
          after: {
            type: 'string',
            maxLength: TIME_BOUND_MAX_CHARS,
            description:
              'Discover shape only: inclusive lower bound on session start time. ISO date/datetime (e.g. 2026-06-01) or relative duration (7d, 24h, 2w = within the last N). Use only when the user names a time frame; sort is a ranking bias, not a bound.',
          },
          before: {
            type: 'string',
            maxLength: TIME_BOUND_MAX_CHARS,
            description:
              'Discover shape only: exclusive upper bound on session start time. ISO date/datetime (a date-only value is midnight UTC that day) or relative duration (7d = older than a week). Use only when the user names a time frame.',
          },
        }
      : {}),
    ...(changes.has('session_search_exclude_ids')
      ? {
          exclude_session_ids: {
            type: 'array',
            items: { type: 'string', maxLength: SESSION_ID_MAX_CHARS },
            maxItems: EXCLUDE_IDS_MAX_ITEMS,
            description: `Discover shape only: session ids already inspected this task; those sessions and their lineage are left out, so a later query explores instead of repeating the same hit. The first ${EXCLUDE_SESSION_IDS_CAP} distinct ids count.`,
          },
        }
      : {}),
  };
}

/** Scroll's and read's parameters. */
const SESSION_PROPERTIES = {
  session_id: {
    type: 'string',
    maxLength: SESSION_ID_MAX_CHARS,
    description:
      'Scroll shape (with around_message_id) or read shape (alone): the session to read, e.g. a session_id from a discover result. ' +
      'A session link `@session:<profile>/<id>` of this profile is accepted.',
  },
  around_message_id: {
    type: 'integer',
    description: 'Scroll shape: the message id to center the window on (a match_message_id, or any id seen in an earlier window).',
  },
  window: {
    type: 'integer',
    default: 5,
    description: 'Scroll shape only: messages on each side of the anchor (the anchor is always included). Default 5, clamped to 1-20.',
  },
};

const ROLE_FILTER_PROPERTY = {
  role_filter: {
    type: 'string',
    maxLength: ROLE_FILTER_MAX_CHARS,
    description:
      "Discover shape: comma-separated roles to search. Default 'user,assistant' (tool output is usually noise); 'user,assistant,tool' includes tool output, 'tool' searches only it.",
  },
};

/** The tool's input schema, for a Hermes with `changes` (its parameters, never `profile`). */
export function sessionSearchInputSchema(changes: ReadonlySet<SessionSearchChange>): Record<string, unknown> {
  return {
    type: 'object',
    properties: { ...QUERY_PROPERTIES, ...laterDiscoverProperties(changes), ...SESSION_PROPERTIES, ...ROLE_FILTER_PROPERTY },
    additionalProperties: false,
  };
}
