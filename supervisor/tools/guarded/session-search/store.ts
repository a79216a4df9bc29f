import type Database from 'better-sqlite3';
import { escapeLike } from './fts.js';
import { boundedBrowse, browseSessions, compressionTip } from './browse.js';
import { ftsUsable, MessageSearch, VISIBLE } from './message-search.js';
import type { SessionRow, MessageRow, SearchHit, MessagesAround, AnchoredView, BrowseRow, SearchOptions, SearchRoutes } from './rows.js';
import { openStateDb, type StateDbFacts } from './store-open.js';

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
// Opening it and checking that it is one this reader understands: store-open.ts; searching it:
// message-search.ts; browsing it: browse.ts.

/** The session's live transcript (Hermes `get_messages` without include_inactive). */
const LIVE = 'm.active = 1';

const MESSAGE_COLUMNS = 'm.id, m.session_id, m.role, m.content, m.tool_call_id, m.tool_calls, m.tool_name, m.timestamp';

export class SessionStore {
  private readonly db: Database.Database;
  private readonly parentCache = new Map<string, string | null>();
  private readonly messages: MessageSearch;
  /** What the database holds that the reader follows (store-open.ts). */
  readonly facts: StateDbFacts;

  private constructor(db: Database.Database, facts: StateDbFacts) {
    this.db = db;
    this.facts = facts;
    this.messages = new MessageSearch(db, facts);
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
    return ftsUsable(this.facts);
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
  /**
   * The hits for `query` and the route they came from (`fts5`, `trigram`, `like`, or `none`).
   * `routes` says which of Hermes 0.22's routes the followed Hermes has; what the database holds
   * (a stale or absent index, a pending rebuild, the trigram index) is read from it.
   */
  search(query: string, opts: SearchOptions, routes: SearchRoutes): { hits: SearchHit[]; route: string } {
    return this.messages.search(query, opts, routes);
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
    return browseSessions(this.db, this.facts, excludeSources, limit, previewChars);
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
    return boundedBrowse(this.db, this.facts, excludeSources, limit, previewChars);
  }

  /** Hermes `get_compression_tip`: follow compression continuations forward to the live one. */
  compressionTip(id: string): string {
    return compressionTip(this.db, id);
  }
}
