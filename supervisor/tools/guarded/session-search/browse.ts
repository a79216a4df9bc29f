import type Database from 'better-sqlite3';
import type { BrowseRow } from './rows.js';
import type { StateDbFacts } from './store-open.js';

// Browsing Hermes' session database (no query): the recent conversations as Hermes lists them
// (hermes_state `list_sessions_rich(order_by_last_active=True)`; Hermes 0.22's
// `list_recent_sessions_bounded`), and a compression chain followed forward to its live tip. Runs on
// the read-only connection store.ts opened.

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
/**
 * Root sessions (no parent, not a delegate's, not archived), hidden sources excluded, most
 * recently active first, a compression chain's activity counting for its root; then each
 * compression root projected forward to its tip (id, title, message count, last activity,
 * preview), keeping the root's started_at. `preview_raw` is the start of the first user message
 * (all of it when Hermes stored it as `\0json:` parts, which only decode whole).
 */
export function browseSessions(db: Database.Database, facts: StateDbFacts, excludeSources: readonly string[], limit: number, previewChars: number): BrowseRow[] {
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
    SELECT ${browseColumns(facts.displayKind)}
    FROM sessions s JOIN chain_max cm ON cm.root_id = s.id
    ORDER BY cm.effective DESC, s.started_at DESC, s.id DESC
    LIMIT ?`;
  const rows = db.prepare(sql).all(...excludeSources, previewChars, limit) as BrowseRow[];
  const one = db.prepare(`SELECT ${browseColumns(facts.displayKind)} FROM sessions s WHERE s.id = ?`);
  return rows.map((row) => {
    if (row.end_reason !== 'compression') return row;
    const tip = compressionTip(db, row.id);
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
export function boundedBrowse(db: Database.Database, facts: StateDbFacts, excludeSources: readonly string[], limit: number, previewChars: number): BrowseRow[] {
  const { sessionsHidden, lastActivity } = facts;
  const hasSessionKey = hasColumn(db, 'sessions', 'session_key');
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
      r.activity AS last_active, ${previewOf('tip.id', facts.displayKind)} AS preview_raw
    FROM ranked r JOIN sessions root ON root.id = r.root_id JOIN sessions tip ON tip.id = r.cur_id
    WHERE r.n = 1 AND ${visible('root')} AND (root.parent_session_id IS NULL OR ${branchChild} OR ${resetChild})
    ORDER BY r.activity DESC, root.started_at DESC, tip.id DESC
    LIMIT ?`;
  const candidateLimit = Math.max(limit, Math.min(Math.max(BROWSE_MIN_CANDIDATES, limit * 8), BROWSE_MAX_CANDIDATES));
  const lineageLimit = Math.max(candidateLimit, Math.min(candidateLimit * 8, BROWSE_MAX_LINEAGE_ROWS));
  return db.prepare(sql).all(...excludeSources, candidateLimit, lineageLimit, lineageLimit, previewChars, limit) as BrowseRow[];
}

function hasColumn(db: Database.Database, table: string, column: string): boolean {
  return db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?').get(table, column) !== undefined;
}

/** Hermes `get_compression_tip`: follow compression continuations forward to the live one. */
export function compressionTip(db: Database.Database, id: string): string {
  const next = db.prepare(`
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
