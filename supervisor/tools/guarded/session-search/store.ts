import type Database from 'better-sqlite3';
import {
  containsCjk,
  escapeLike,
  nonOperatorTokens,
  quoteFtsTokens,
  sanitizeFtsQuery,
  stripOuterQuotes,
  trigramServesCjk,
} from './fts.js';
import type { SessionRow, MessageRow, SearchHit, MessagesAround, AnchoredView, BrowseRow, SearchOptions } from './rows.js';
import { openStateDb, sqliteCode } from './store-open.js';

export type { SessionRow, MessageRow, SearchHit, MessagesAround, AnchoredView, BrowseRow, SearchOptions } from './rows.js';
export {
  isSqliteError,
  isTransientReadError,
  OLDEST_SUPPORTED_SCHEMA_VERSION,
  StoreError,
  storeErrorFrom,
  SUPPORTED_SCHEMA_VERSION,
} from './store-open.js';

// Read-only access to Hermes' session database ($HERMES_HOME/state.db, hermes_state.py). The file is
// opened with SQLITE_OPEN_READONLY and must already exist: nothing here migrates, checkpoints,
// changes a pragma, or writes a page. As a WAL reader the connection never blocks Hermes' writer;
// it is opened per call and closed before the call returns, so it never pins a WAL snapshot.
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

/** A browse row (its first parameter: how much of the first user message to read). */
const BROWSE_COLUMNS = `s.id, s.title, s.source, s.started_at, s.message_count, s.end_reason,
  COALESCE((SELECT CASE WHEN SUBSTR(CAST(m.content AS BLOB), 1, 6) = X'006A736F6E3A' THEN m.content
                        ELSE SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, ?) END
            FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
            ORDER BY m.timestamp, m.id LIMIT 1), '') AS preview_raw,
  COALESCE((SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id), s.started_at) AS last_active`;

export class SessionStore {
  private readonly db: Database.Database;
  private readonly trigram: boolean;
  private readonly parentCache = new Map<string, string | null>();
  /** The database's schema_version (within the supported range). */
  readonly schemaVersion: number;

  private constructor(db: Database.Database, schemaVersion: number, trigram: boolean) {
    this.db = db;
    this.schemaVersion = schemaVersion;
    this.trigram = trigram;
  }

  /**
   * Opens `path` read-only and checks that it is a Hermes session database this adapter can read.
   * `busyTimeoutMs` (default Hermes' reader timeout) is shortened by the /readyz probe, which runs
   * on the gateway's event loop and must never wait long on a writer.
   */
  static open(path: string, options: { busyTimeoutMs?: number } = {}): SessionStore {
    const { db, version, trigram } = openStateDb(path, options);
    return new SessionStore(db, version, trigram);
  }

  /** Whether the CJK trigram index (`messages_fts_trigram`) exists in this database. */
  get hasTrigramIndex(): boolean {
    return this.trigram;
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
  // Search (hermes_state `search_messages` over the single-column FTS tables, schema 11 on)
  // ---------------------------------------------------------------------------------------------

  private filters(opts: SearchOptions): { where: string[]; params: unknown[] } {
    const where = [VISIBLE];
    const params: unknown[] = [];
    if (opts.excludeSources.length > 0) {
      where.push(`s.source NOT IN (${opts.excludeSources.map(() => '?').join(',')})`);
      params.push(...opts.excludeSources);
    }
    if (opts.roles.length > 0) {
      where.push(`m.role IN (${opts.roles.map(() => '?').join(',')})`);
      params.push(...opts.roles);
    }
    return { where, params };
  }

  private matchRows(table: 'messages_fts' | 'messages_fts_trigram', match: string, opts: SearchOptions): SearchHit[] | null {
    const { where, params } = this.filters(opts);
    const order =
      opts.sort === 'newest' ? 'ORDER BY m.timestamp DESC, rank' : opts.sort === 'oldest' ? 'ORDER BY m.timestamp ASC, rank' : 'ORDER BY rank';
    const sql =
      `SELECT m.id, m.session_id, m.role, snippet(${table}, 0, '>>>', '<<<', '...', 40) AS snippet, ` +
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

  /** Substring scan for CJK terms the indexes cannot serve (Hermes' LIKE fallback; newest first). */
  private likeRows(tokens: string[], opts: SearchOptions): SearchHit[] {
    const { where, params } = this.filters(opts);
    const any = `(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' OR m.tool_calls LIKE ? ESCAPE '\\')`;
    const likeParams = tokens.flatMap((t) => {
      const p = `%${escapeLike(t)}%`;
      return [p, p, p];
    });
    const sql =
      `SELECT m.id, m.session_id, m.role, substr(m.content, max(1, instr(m.content, ?) - 40), 120) AS snippet, ` +
      `s.source, s.model, s.started_at AS session_started FROM messages m JOIN sessions s ON s.id = m.session_id ` +
      `WHERE (${tokens.map(() => any).join(' OR ')}) AND ${where.join(' AND ')} ORDER BY m.timestamp DESC LIMIT ?`;
    return this.db.prepare(sql).all(tokens[0], ...likeParams, ...params, opts.limit) as SearchHit[];
  }

  /** The route a query takes, for the response (`fts5`, `trigram`, `like`, or `none`). */
  search(query: string, opts: SearchOptions): { hits: SearchHit[]; route: string } {
    const sanitized = sanitizeFtsQuery(query);
    if (!sanitized) return { hits: [], route: 'none' };
    if (containsCjk(sanitized)) {
      const raw = stripOuterQuotes(sanitized);
      if (this.trigram && trigramServesCjk(raw)) {
        const hits = this.matchRows('messages_fts_trigram', quoteFtsTokens(raw), opts);
        if (hits !== null) return { hits, route: 'trigram' };
      }
      const tokens = nonOperatorTokens(raw).map(stripOuterQuotes).filter((t) => t !== '');
      return { hits: this.likeRows(tokens.length > 0 ? tokens : [raw], opts), route: 'like' };
    }
    // No trigram retry on a miss: hermes-agent 0.19.0's search_messages has none (an older upstream
    // retried, which also turned a missed "exact phrase" into its words in any order).
    return { hits: this.matchRows('messages_fts', sanitized, opts) ?? [], route: 'fts5' };
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
      SELECT ${BROWSE_COLUMNS}
      FROM sessions s JOIN chain_max cm ON cm.root_id = s.id
      ORDER BY cm.effective DESC, s.started_at DESC, s.id DESC
      LIMIT ?`;
    const rows = this.db.prepare(sql).all(...excludeSources, previewChars, limit) as BrowseRow[];
    const one = this.db.prepare(`SELECT ${BROWSE_COLUMNS} FROM sessions s WHERE s.id = ?`);
    return rows.map((row) => {
      if (row.end_reason !== 'compression') return row;
      const tip = this.compressionTip(row.id);
      const tipRow = tip === row.id ? undefined : (one.get(previewChars, tip) as BrowseRow | undefined);
      return tipRow ? { ...tipRow, source: row.source, started_at: row.started_at } : row;
    });
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
