import type Database from 'better-sqlite3';
import {
  containsCjk,
  escapeLike,
  gapTerms,
  likeBooleanQuery,
  nonOperatorTokens,
  orRelaxedQuery,
  quoteFtsTokens,
  sanitizeFtsQuery,
  stripCjkWildcards,
  stripOuterQuotes,
  trigramEligibleTokens,
  trigramServesCjk,
} from './fts.js';
import type { SessionRow, MessageRow, SearchHit, MessagesAround, AnchoredView, BrowseRow, SearchOptions, SearchRoutes } from './rows.js';
import { openStateDb, sqliteCode, type StateDbFacts } from './store-open.js';

export type { SessionRow, MessageRow, SearchHit, MessagesAround, AnchoredView, BrowseRow, SearchOptions, SearchRoutes } from './rows.js';
export type { IndexRebuild, StateDbFacts } from './store-open.js';
export {
  isSqliteError,
  isTransientReadError,
  NEWEST_KNOWN_SCHEMA_VERSION,
  OLDEST_SUPPORTED_SCHEMA_VERSION,
  StoreError,
  storeErrorFrom,
} from './store-open.js';

// Read-only access to Hermes' session database ($HERMES_HOME/state.db, hermes_state.py). The file is
// opened with SQLITE_OPEN_READONLY and must already exist: nothing here migrates, checkpoints,
// changes a pragma, or writes a page. As a WAL reader the connection never blocks Hermes' writer;
// it is opened per call and closed before the call returns, so it never pins a WAL snapshot. (In a
// rollback-journal database, which Hermes 0.22 keeps where its SQLite has the WAL-reset bug, a read
// holds a shared lock while it runs, so Hermes' commit waits at most for the one read.)
//
// Which search routes and result fields are followed is the detected Hermes' (TaskInput.changes);
// what the database holds (display_kind, sessions.hidden, a stale or rebuilding index) is read from
// the database itself (store-open.ts StateDbFacts), whichever Hermes wrote it.
//
// SQLite itself may create the standard `-wal`/`-shm` sidecars when Hermes is not running (a WAL
// reader needs the shared-memory index); Hermes reuses them. Sidecars this call caused to exist get
// no wider permissions than state.db itself, because once Hermes writes, the WAL holds messages.
//
// Opening it and checking that it is one this reader understands: store-open.ts.

/** Rewound/undone rows (`active=0, compacted=0`) stay hidden; compaction-archived rows are history. */
const VISIBLE = '(m.active = 1 OR m.compacted = 1)';
/** The session's live transcript (Hermes `get_messages` without include_inactive). */
const LIVE = 'm.active = 1';

const MESSAGE_COLUMNS = 'm.id, m.session_id, m.role, m.content, m.tool_call_id, m.tool_calls, m.tool_name, m.timestamp';

/** A term in any of a message's searchable columns (hermes_state_search `_LIKE_ANY_COLUMN_SQL`). */
const ANY_COLUMN_LIKE = `(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' OR m.tool_calls LIKE ? ESCAPE '\\')`;
/** The same over NULL-safe columns, so `NOT` holds for a row without tool calls (`_LIKE_COALESCED_COLUMN_SQL`). */
const COALESCED_COLUMN_LIKE = `(COALESCE(m.content, '') LIKE ? ESCAPE '\\' OR COALESCE(m.tool_name, '') LIKE ? ESCAPE '\\' OR COALESCE(m.tool_calls, '') LIKE ? ESCAPE '\\')`;

/** Not a delegate subagent's session (Hermes tags those `model_config._delegate_from`). */
const NOT_DELEGATE = (a: string) => `json_extract(COALESCE(${a}.model_config, '{}'), '$._delegate_from') IS NULL`;

/**
 * `child` continues `parent` after a compression (hermes_state's chain edge): not a branch, a
 * delegate or a tool session. No started_at >= ended_at test: Hermes dropped it, since a
 * continuation row can be written before its parent's ended_at.
 */
const CONTINUATION =
  "parent.end_reason = 'compression' AND json_extract(COALESCE(child.model_config, '{}'), '$._branched_from') IS NULL " +
  `AND ${NOT_DELEGATE('child')} AND COALESCE(child.source, '') != 'tool'`;

/**
 * The start of a session's first user message (its first parameter: how much to read), all of it
 * when Hermes stored it as `\0json:` parts, which only decode whole. Rows Hermes marks
 * display_kind 'hidden' are never a preview (hermes_state_common `_PREVIEW_ELIGIBLE_SQL`).
 */
function previewOf(sessionId: string, displayKind: boolean): string {
  return `COALESCE((SELECT CASE WHEN SUBSTR(CAST(m.content AS BLOB), 1, 6) = X'006A736F6E3A' THEN m.content
                        ELSE SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, ?) END
            FROM messages m WHERE m.session_id = ${sessionId} AND m.role = 'user' AND m.content IS NOT NULL${displayKind ? ` AND COALESCE(m.display_kind, '') <> 'hidden'` : ''}
            ORDER BY m.timestamp, m.id LIMIT 1), '')`;
}

/** A browse row (its first parameter: how much of the first user message to read). */
const browseColumns = (displayKind: boolean) => `s.id, s.title, s.source, s.started_at, s.message_count, s.end_reason,
  ${previewOf('s.id', displayKind)} AS preview_raw,
  COALESCE((SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id), s.started_at) AS last_active`;

/** A JSON marker of a TEXT column that never throws on a malformed value (hermes_state_common `_sql_json_extract`). */
const SAFE_JSON = (column: string, alias: string, path: string) =>
  `json_extract(CASE WHEN json_valid(${alias}.${column}) THEN ${alias}.${column} ELSE json_object() END, '${path}')`;
/** End reasons of a /new-style reset, whose child is a conversation of its own (hermes_state_common `_RESET_END_REASONS`). */
const RESET_END_REASONS = ['session_reset', 'session_switch', 'idle', 'daily', 'suspended', 'resume_pending_expired'];
/** Timestamps outside these bounds are damage, not activity (hermes_cli/timefmt `EPOCH_MIN`/`EPOCH_MAX`). */
const EPOCH_MIN = 0;
const EPOCH_MAX = 4_200_000_000;
/** Hermes' bounds on browse's candidate set and lineage walk (`list_recent_sessions_bounded`). */
const BROWSE_MIN_CANDIDATES = 128;
const BROWSE_MAX_CANDIDATES = 2048;
const BROWSE_MAX_LINEAGE_ROWS = 8192;

export class SessionStore {
  private readonly db: Database.Database;
  private readonly parentCache = new Map<string, string | null>();
  /** What the database holds that the reader follows (store-open.ts). */
  readonly facts: StateDbFacts;

  private constructor(db: Database.Database, facts: StateDbFacts) {
    this.db = db;
    this.facts = facts;
  }

  /**
   * Opens `path` read-only and checks that it is a Hermes session database this adapter can read.
   * `busyTimeoutMs` (default Hermes' reader timeout) is shortened by the /readyz probe, which runs
   * on the gateway's event loop and must never wait long on a writer.
   */
  static open(path: string, options: { busyTimeoutMs?: number } = {}): SessionStore {
    const { db, facts } = openStateDb(path, options);
    return new SessionStore(db, facts);
  }

  /** The database's schema_version (null where Hermes wrote none). */
  get schemaVersion(): number | null {
    return this.facts.version;
  }

  /** Whether the CJK trigram index (`messages_fts_trigram`) exists in this database. */
  get hasTrigramIndex(): boolean {
    return this.facts.trigram;
  }

  /** Whether the word index can answer: present and not marked stale (else every search scans the messages table). */
  get ftsUsable(): boolean {
    return this.facts.fts !== null && !this.facts.ftsStale;
  }

  close(): void {
    this.db.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Sessions and lineage
  // ---------------------------------------------------------------------------------------------

  getSession(id: string): SessionRow | undefined {
    return this.db
      .prepare('SELECT id, source, model, title, started_at, parent_session_id, end_reason FROM sessions WHERE id = ?')
      .get(id) as SessionRow | undefined;
  }

  /**
   * Hermes `resolve_session_by_title`: the newest "title #N" continuation if any, else the session
   * titled exactly `title`.
   */
  sessionByTitle(title: string): string | undefined {
    const numbered = this.db
      .prepare(`SELECT id FROM sessions WHERE title LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 1`)
      .get(`${escapeLike(title)} #%`) as { id: string } | undefined;
    if (numbered) return numbered.id;
    return (this.db.prepare('SELECT id FROM sessions WHERE title = ?').get(title) as { id: string } | undefined)?.id;
  }

  /** The first live message of a session (Hermes `get_messages`: active rows, by id). */
  firstLiveMessage(sessionId: string): number | undefined {
    return (this.db.prepare('SELECT id FROM messages WHERE session_id = ? AND active = 1 ORDER BY id LIMIT 1').get(sessionId) as { id: number } | undefined)?.id;
  }

  private parentOf(id: string): string | null | undefined {
    if (this.parentCache.has(id)) return this.parentCache.get(id);
    const row = this.db.prepare('SELECT parent_session_id AS p FROM sessions WHERE id = ?').get(id) as { p: string | null } | undefined;
    if (!row) return undefined;
    this.parentCache.set(id, row.p);
    return row.p;
  }

  /** Hermes `_resolve_to_parent`: walk parent_session_id to the lineage root (cycle-safe). */
  lineageRoot(id: string): string {
    const visited = new Set<string>();
    let cur = id;
    while (cur && !visited.has(cur)) {
      visited.add(cur);
      const parent = this.parentOf(cur);
      if (!parent) break;
      cur = parent;
    }
    return cur;
  }

  /** The session a message belongs to, if the message is visible. */
  owningSession(messageId: number): string | undefined {
    const row = this.db.prepare(`SELECT m.session_id AS s FROM messages m WHERE m.id = ? AND ${VISIBLE}`).get(messageId) as { s: string } | undefined;
    return row?.s;
  }

  // ---------------------------------------------------------------------------------------------
  // Messages
  // ---------------------------------------------------------------------------------------------

  /** Hermes `get_messages_around`: ±window visible messages around an anchor, by id. */
  messagesAround(sessionId: string, anchorId: number, window: number): MessagesAround {
    const anchor = this.db.prepare(`SELECT 1 FROM messages m WHERE m.id = ? AND m.session_id = ? AND ${VISIBLE}`).get(anchorId, sessionId);
    if (!anchor) return { window: [], messages_before: 0, messages_after: 0 };
    const before = this.db
      .prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.session_id = ? AND m.id <= ? AND ${VISIBLE} ORDER BY m.id DESC LIMIT ?`)
      .all(sessionId, anchorId, window + 1) as MessageRow[];
    const after = this.db
      .prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.session_id = ? AND m.id > ? AND ${VISIBLE} ORDER BY m.id ASC LIMIT ?`)
      .all(sessionId, anchorId, window) as MessageRow[];
    return { window: [...before.reverse(), ...after], messages_before: Math.max(0, before.length - 1), messages_after: after.length };
  }

  /**
   * Hermes `get_anchored_view`: the window filtered to user/assistant (the anchor always kept), plus
   * the first/last `bookend` non-empty user/assistant messages strictly outside the window.
   */
  anchoredView(sessionId: string, anchorId: number, window = 5, bookend = 3): AnchoredView {
    const around = this.messagesAround(sessionId, anchorId, window);
    if (around.window.length === 0) return { ...around, bookend_start: [], bookend_end: [] };
    const keep = new Set(['user', 'assistant']);
    const filtered = around.window.filter((m) => m.id === anchorId || keep.has(m.role));
    const first = around.window[0]!.id;
    const last = around.window[around.window.length - 1]!.id;
    const bookendSql = (op: '<' | '>', order: 'ASC' | 'DESC') =>
      `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.session_id = ? AND m.id ${op} ? AND m.role IN ('user', 'assistant') ` +
      `AND length(m.content) > 0 AND ${VISIBLE} ORDER BY m.id ${order} LIMIT ?`;
    const start = this.db.prepare(bookendSql('<', 'ASC')).all(sessionId, first, bookend) as MessageRow[];
    const end = (this.db.prepare(bookendSql('>', 'DESC')).all(sessionId, last, bookend) as MessageRow[]).reverse();
    return { window: filtered, messages_before: around.messages_before, messages_after: around.messages_after, bookend_start: start, bookend_end: end };
  }

  /** Live messages of a session (Hermes `get_messages`: `active = 1`; compaction-archived and rewound rows are not the session's transcript). */
  countMessages(sessionId: string): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM messages m WHERE m.session_id = ? AND ${LIVE}`).get(sessionId) as { n: number }).n;
  }

  /** The first `head` and last `tail` live messages of a session (or all of them when they overlap), as Hermes' read shape slices `get_messages`. */
  headTail(sessionId: string, head: number, tail: number): MessageRow[] {
    const first = this.db
      .prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.session_id = ? AND ${LIVE} ORDER BY m.id ASC LIMIT ?`)
      .all(sessionId, head) as MessageRow[];
    const lastRows = (
      this.db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.session_id = ? AND ${LIVE} ORDER BY m.id DESC LIMIT ?`).all(sessionId, tail) as MessageRow[]
    ).reverse();
    const seen = new Set(first.map((m) => m.id));
    return [...first, ...lastRows.filter((m) => !seen.has(m.id))];
  }

  // ---------------------------------------------------------------------------------------------
  // Search (hermes_state `search_messages`; Hermes 0.22: hermes_state_search `_search_messages_impl`)
  // ---------------------------------------------------------------------------------------------

  /** `_search_filter_clauses`: visibility, display_kind, sources, roles, session start bounds. */
  private filters(opts: SearchOptions): { where: string[]; params: unknown[] } {
    const where = [VISIBLE];
    const params: unknown[] = [];
    // Rows Hermes marks display_kind 'hidden' are model-facing scaffolding the person never saw.
    if (this.facts.displayKind) where.push(`COALESCE(m.display_kind, '') <> 'hidden'`);
    if (opts.excludeSources.length > 0) {
      where.push(`s.source NOT IN (${opts.excludeSources.map(() => '?').join(',')})`);
      params.push(...opts.excludeSources);
    }
    if (opts.roles.length > 0) {
      where.push(`m.role IN (${opts.roles.map(() => '?').join(',')})`);
      params.push(...opts.roles);
    }
    if (opts.afterTs !== undefined) {
      where.push('s.started_at >= ?');
      params.push(opts.afterTs);
    }
    if (opts.beforeTs !== undefined) {
      where.push('s.started_at < ?');
      params.push(opts.beforeTs);
    }
    return { where, params };
  }

  private matchRows(table: 'messages_fts' | 'messages_fts_trigram', match: string, opts: SearchOptions): SearchHit[] | null {
    const { where, params } = this.filters(opts);
    const order =
      opts.sort === 'newest' ? 'ORDER BY m.timestamp DESC, rank' : opts.sort === 'oldest' ? 'ORDER BY m.timestamp ASC, rank' : 'ORDER BY rank';
    // snippet(…, -1): the best-matching column, so a hit in tool_name or tool_calls (separate
    // columns of Hermes 0.22's index layouts) still has a snippet; the single-column layout of
    // 0.19 has one column, where -1 is 0.
    const sql =
      `SELECT m.id, m.session_id, m.role, snippet(${table}, -1, '>>>', '<<<', '...', 40) AS snippet, ` +
      `s.source, s.model, s.started_at AS session_started ` +
      `FROM ${table} JOIN messages m ON m.id = ${table}.rowid JOIN sessions s ON s.id = m.session_id ` +
      `WHERE ${table} MATCH ? AND ${where.join(' AND ')} ${order} LIMIT ?`;
    try {
      return this.db.prepare(sql).all(match, ...params, opts.limit) as SearchHit[];
    } catch (e) {
      // An FTS5 syntax error despite sanitization: Hermes answers "no results" rather than failing.
      if (sqliteCode(e) === 'SQLITE_ERROR') return null;
      throw e;
    }
  }

  /** A LIKE scan of the messages table: `predicate` over the rows the filters keep, the snippet around `snippetTerm`. */
  private likeScan(predicate: string, predicateParams: unknown[], snippetTerm: string, opts: SearchOptions, order: string, limit = opts.limit): SearchHit[] {
    const { where, params } = this.filters(opts);
    const sql =
      `SELECT m.id, m.session_id, m.role, substr(m.content, max(1, instr(m.content, ?) - 40), 120) AS snippet, ` +
      `s.source, s.model, s.started_at AS session_started FROM messages m JOIN sessions s ON s.id = m.session_id ` +
      `WHERE ${predicate} AND ${where.join(' AND ')} ${order} LIMIT ?`;
    return this.db.prepare(sql).all(snippetTerm, ...predicateParams, ...params, limit) as SearchHit[];
  }

  /** Substring scan for CJK terms the indexes cannot serve (Hermes' LIKE fallback; newest first). */
  private likeRows(tokens: string[], opts: SearchOptions): SearchHit[] {
    const likeParams = tokens.flatMap((t) => Array<string>(3).fill(`%${escapeLike(t)}%`));
    return this.likeScan(`(${tokens.map(() => ANY_COLUMN_LIKE).join(' OR ')})`, likeParams, tokens[0]!, opts, 'ORDER BY m.timestamp DESC');
  }

  /**
   * Hermes 0.22's scan of the messages table for the FTS boolean subset (`_compile_like_boolean_query`,
   * `_search_messages_like_fallback`): for a role_filter naming `tool`, and for every query while
   * the index is stale or absent. Newest first (`oldest` reverses it), ties by id.
   */
  private likeBoolean(query: string, opts: SearchOptions): SearchHit[] {
    const compiled = likeBooleanQuery(query);
    if (!compiled) return [];
    const params: unknown[] = [];
    const groups = compiled.groups.map((group) => {
      const clauses = group.map(({ term, negated }) => {
        params.push(...Array<string>(3).fill(`%${escapeLike(term)}%`));
        return negated ? `NOT ${COALESCED_COLUMN_LIKE}` : COALESCED_COLUMN_LIKE;
      });
      return `(${clauses.join(' AND ')})`;
    });
    const dir = opts.sort === 'oldest' ? 'ASC' : 'DESC';
    return this.likeScan(`(${groups.join(' OR ')})`, params, compiled.snippetTerm, opts, `ORDER BY m.timestamp ${dir}, m.id ${dir}`);
  }

  /** `_search_unindexed_gap`: while Hermes rebuilds the index, the ids it has not reached yet, by substring. */
  private gapRows(query: string, opts: SearchOptions, limit: number): SearchHit[] {
    const rebuild = this.facts.rebuild;
    const terms = gapTerms(query);
    if (!rebuild || limit <= 0 || terms.length === 0) return [];
    const predicate = ['m.id > ? AND m.id <= ?', ...terms.map(() => ANY_COLUMN_LIKE)].join(' AND ');
    const params = [rebuild.indexed, rebuild.total, ...terms.flatMap((t) => Array<string>(3).fill(`%${escapeLike(t)}%`))];
    return this.likeScan(predicate, params, terms[0]!, opts, 'ORDER BY m.timestamp DESC', limit);
  }

  /**
   * The hits for `query` and the route they came from (`fts5`, `trigram`, `like`, or `none`).
   * `routes` says which of Hermes 0.22's routes the followed Hermes has; what the database holds
   * (a stale or absent index, a pending rebuild, the trigram index) is read from it.
   */
  search(query: string, opts: SearchOptions, routes: SearchRoutes): { hits: SearchHit[]; route: string } {
    const sanitized = sanitizeFtsQuery(query);
    if (!sanitized) return { hits: [], route: 'none' };
    const toolRole = opts.roles.includes('tool');
    // Tool results past 8,192 characters are not in Hermes 0.22's word index: a search of tool
    // output is its opt-in full-body path.
    if (routes.toolLikeScan && toolRole) return { hits: this.likeBoolean(sanitized, opts), route: 'like' };
    // An index Hermes marked stale (or one that is not there): Hermes answers from the messages table.
    if (!this.ftsUsable) return { hits: this.likeBoolean(sanitized, opts), route: 'like' };
    let hits: SearchHit[];
    let route: string;
    const cjk = containsCjk(sanitized);
    if (cjk) {
      ({ hits, route } = this.searchCjk(sanitized, opts, routes));
    } else {
      const found = this.matchRows('messages_fts', sanitized, opts);
      if (found === null) return { hits: [], route: 'fts5' }; // FTS5 syntax error despite sanitization
      hits = found;
      route = 'fts5';
    }
    // While Hermes rebuilds the index, the ids it has not reached are scanned too.
    if (this.facts.rebuild && hits.length < opts.limit) {
      const seen = new Set(hits.map((h) => h.id));
      hits = [...hits, ...this.gapRows(sanitized, opts, opts.limit - hits.length).filter((h) => !seen.has(h.id))];
    }
    // Hermes 0.22: unicode61 puts no boundary between Latin and adjacent CJK text, so a Latin miss
    // is retried on the substring index (never Hermes' native-tokenizer messages_fts_cjk).
    if (routes.substringRetry && hits.length === 0 && !cjk && !toolRole && this.facts.trigram && trigramEligibleTokens(sanitized)) {
      const retried = this.matchRows('messages_fts_trigram', quoteFtsTokens(stripOuterQuotes(sanitized)), opts);
      if (retried && retried.length > 0) ({ hits, route } = { hits: retried, route: 'trigram' });
    }
    // Hermes 0.22: a multi-term miss is retried matching any of its terms.
    if (routes.orRelaxed && hits.length === 0 && !cjk) {
      const relaxed = orRelaxedQuery(sanitized);
      const retried = relaxed === undefined ? null : this.matchRows('messages_fts', relaxed, opts);
      if (retried && retried.length > 0) hits = retried;
    }
    return { hits, route };
  }

  /** CJK routing: the trigram index for 3+ characters per token, else a substring scan per token. */
  private searchCjk(sanitized: string, opts: SearchOptions, routes: SearchRoutes): { hits: SearchHit[]; route: string } {
    const raw = stripOuterQuotes(routes.cjkWildcards ? stripCjkWildcards(sanitized) : sanitized);
    if (this.facts.trigram && trigramServesCjk(raw)) {
      const hits = this.matchRows('messages_fts_trigram', quoteFtsTokens(raw), opts);
      if (hits !== null) return { hits, route: 'trigram' };
    }
    const tokens = nonOperatorTokens(raw).map(stripOuterQuotes).filter((t) => t !== '');
    return { hits: this.likeRows(tokens.length > 0 ? tokens : [raw], opts), route: 'like' };
  }

  /** The full content of one message (to check what its snippet may have cut). */
  messageContent(id: number): unknown {
    return (this.db.prepare('SELECT content FROM messages WHERE id = ?').get(id) as { content: unknown } | undefined)?.content;
  }

  // ---------------------------------------------------------------------------------------------
  // Browse (hermes_state `list_sessions_rich(order_by_last_active=True)`)
  // ---------------------------------------------------------------------------------------------

  /**
   * Root sessions (no parent, not a delegate's, not archived), hidden sources excluded, most
   * recently active first, a compression chain's activity counting for its root; then each
   * compression root projected forward to its tip (id, title, message count, last activity,
   * preview), keeping the root's started_at. `preview_raw` is the start of the first user message
   * (all of it when Hermes stored it as `\0json:` parts, which only decode whole).
   */
  browse(excludeSources: readonly string[], limit: number, previewChars: number): BrowseRow[] {
    const exclude = excludeSources.length > 0 ? ` AND s.source NOT IN (${excludeSources.map(() => '?').join(',')})` : '';
    const sql = `
      WITH RECURSIVE chain(root_id, cur_id) AS (
        SELECT s.id, s.id FROM sessions s WHERE s.parent_session_id IS NULL AND ${NOT_DELEGATE('s')} AND s.archived = 0${exclude}
        UNION ALL
        SELECT c.root_id, child.id FROM chain c
        JOIN sessions parent ON parent.id = c.cur_id
        JOIN sessions child ON child.parent_session_id = c.cur_id
        WHERE ${CONTINUATION}
      ),
      chain_max AS (
        SELECT c.root_id,
          MAX(COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = c.cur_id), ss.started_at)) AS effective
        FROM chain c JOIN sessions ss ON ss.id = c.cur_id GROUP BY c.root_id
      )
      SELECT ${browseColumns(this.facts.displayKind)}
      FROM sessions s JOIN chain_max cm ON cm.root_id = s.id
      ORDER BY cm.effective DESC, s.started_at DESC, s.id DESC
      LIMIT ?`;
    const rows = this.db.prepare(sql).all(...excludeSources, previewChars, limit) as BrowseRow[];
    const one = this.db.prepare(`SELECT ${browseColumns(this.facts.displayKind)} FROM sessions s WHERE s.id = ?`);
    return rows.map((row) => {
      if (row.end_reason !== 'compression') return row;
      const tip = this.compressionTip(row.id);
      const tipRow = tip === row.id ? undefined : (one.get(previewChars, tip) as BrowseRow | undefined);
      return tipRow ? { ...tipRow, source: row.source, started_at: row.started_at } : row;
    });
  }

  /**
   * Hermes 0.22's browse (hermes_state_sessions `list_recent_sessions_bounded`): the most recently
   * active sessions a person sees in Hermes' own lists, one per compression chain at its freshest
   * tip. Listed: roots and the children that are conversations of their own (/branch, /new-reset:
   * hermes_state_common `_LISTABLE_CHILD_SQL`), never archived, hidden or delegate sessions. A tip
   * shows its own source, id, message count and preview, its root's start, and its root's title
   * when it has none; activity is the freshest of last_activity_at and its messages
   * (`_sql_freshest_of`). The candidates are the `candidateLimit` sessions active last, as in Hermes.
   */
  boundedBrowse(excludeSources: readonly string[], limit: number, previewChars: number): BrowseRow[] {
    const { sessionsHidden, lastActivity } = this.facts;
    const hasSessionKey = this.hasColumn('sessions', 'session_key');
    const visible = (a: string) => `${a}.archived = 0${sessionsHidden ? ` AND ${a}.hidden = 0` : ''} AND ${SAFE_JSON('model_config', a, '$._delegate_from')} IS NULL`;
    const exclude = excludeSources.length > 0 ? ` AND s.source NOT IN (${excludeSources.map(() => '?').join(',')})` : '';
    const edge = `parent.end_reason = 'compression' AND child.parent_session_id = parent.id AND ${SAFE_JSON('model_config', 'child', '$._branched_from')} IS NULL
      AND ${SAFE_JSON('model_config', 'child', '$._delegate_from')} IS NULL AND COALESCE(child.source, '') != 'tool'`;
    const inWindow = (expr: string) => `(SELECT w.v FROM (SELECT ${expr} AS v) w WHERE w.v BETWEEN ${EPOCH_MIN} AND ${EPOCH_MAX})`;
    const lastMessage = `(SELECT MAX(am.timestamp) FROM messages am WHERE am.session_id = c.cur_id AND am.timestamp BETWEEN ${EPOCH_MIN} AND ${EPOCH_MAX})`;
    const activity = `COALESCE((SELECT MAX(av.v) FROM (SELECT ${lastActivity ? '(SELECT last_activity_at FROM sessions sa WHERE sa.id = c.cur_id)' : 'NULL'} AS v UNION ALL SELECT ${lastMessage}) av
      WHERE av.v BETWEEN ${EPOCH_MIN} AND ${EPOCH_MAX}), ${inWindow('(SELECT started_at FROM sessions sa WHERE sa.id = c.cur_id)')})`;
    const branchChild = `${SAFE_JSON('model_config', 'root', '$._branched_from')} IS NOT NULL OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = root.parent_session_id AND p.end_reason = 'branched' AND root.started_at >= p.ended_at)`;
    const resetChild =
      `${SAFE_JSON('model_config', 'root', '$._reset_from')} IS NOT NULL` +
      (hasSessionKey
        ? ` OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = root.parent_session_id AND p.end_reason IN (${RESET_END_REASONS.map((r) => `'${r}'`).join(', ')})
            AND root.session_key IS NOT NULL AND root.session_key != '' AND root.session_key = p.session_key)`
        : '');
    const sql = `
      WITH RECURSIVE
      candidates(id) AS (
        SELECT s.id FROM sessions s WHERE ${visible('s')}${exclude}
        ORDER BY ${lastActivity ? 'COALESCE(s.last_activity_at, s.started_at)' : 's.started_at'} DESC, s.started_at DESC, s.id DESC LIMIT ?
      ),
      ancestors(candidate_id, cur_id) AS (
        SELECT id, id FROM candidates
        UNION
        SELECT a.candidate_id, parent.id FROM ancestors a JOIN sessions child ON child.id = a.cur_id JOIN sessions parent ON ${edge}
        LIMIT ?
      ),
      roots(root_id) AS (
        SELECT DISTINCT a.cur_id FROM ancestors a JOIN sessions child ON child.id = a.cur_id
        WHERE NOT EXISTS (SELECT 1 FROM sessions parent WHERE ${edge})
      ),
      chain(root_id, cur_id) AS (
        SELECT root_id, root_id FROM roots
        UNION
        SELECT c.root_id, child.id FROM chain c JOIN sessions parent ON parent.id = c.cur_id JOIN sessions child ON ${edge}
        LIMIT ?
      ),
      tips AS (
        SELECT c.root_id, c.cur_id, ${activity} AS activity FROM chain c
        WHERE NOT EXISTS (SELECT 1 FROM sessions parent JOIN sessions child ON ${edge} WHERE parent.id = c.cur_id)
      ),
      ranked AS (
        SELECT root_id, cur_id, activity, ROW_NUMBER() OVER (PARTITION BY root_id ORDER BY activity DESC, cur_id DESC) AS n FROM tips
      )
      SELECT tip.id, COALESCE(tip.title, root.title) AS title, tip.source, root.started_at, tip.message_count, tip.end_reason,
        r.activity AS last_active, ${previewOf('tip.id', this.facts.displayKind)} AS preview_raw
      FROM ranked r JOIN sessions root ON root.id = r.root_id JOIN sessions tip ON tip.id = r.cur_id
      WHERE r.n = 1 AND ${visible('root')} AND (root.parent_session_id IS NULL OR ${branchChild} OR ${resetChild})
      ORDER BY r.activity DESC, root.started_at DESC, tip.id DESC
      LIMIT ?`;
    const candidateLimit = Math.max(limit, Math.min(Math.max(BROWSE_MIN_CANDIDATES, limit * 8), BROWSE_MAX_CANDIDATES));
    const lineageLimit = Math.max(candidateLimit, Math.min(candidateLimit * 8, BROWSE_MAX_LINEAGE_ROWS));
    return this.db.prepare(sql).all(...excludeSources, candidateLimit, lineageLimit, lineageLimit, previewChars, limit) as BrowseRow[];
  }

  private hasColumn(table: string, column: string): boolean {
    return this.db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').get(table, column) !== undefined;
  }

  /** Hermes `get_compression_tip`: follow compression continuations forward to the live one. */
  compressionTip(id: string): string {
    const next = this.db.prepare(`
      SELECT child.id FROM sessions parent JOIN sessions child ON child.parent_session_id = parent.id
      WHERE parent.id = ? AND ${CONTINUATION}
      ORDER BY CASE WHEN child.end_reason = 'compression' THEN 0 WHEN child.ended_at IS NULL THEN 1 ELSE 2 END,
        COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = child.id), child.started_at) DESC,
        child.started_at DESC, child.id DESC
      LIMIT 1`);
    const seen = new Set([id]);
    let current = id;
    for (let i = 0; i < 100; i++) {
      const row = next.get(current) as { id: string } | undefined;
      if (!row || seen.has(row.id)) break;
      seen.add(row.id);
      current = row.id;
    }
    return current;
  }
}
