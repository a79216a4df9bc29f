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
import type { SearchHit, SearchOptions, SearchRoutes } from './rows.js';
import { sqliteCode, type StateDbFacts } from './store-open.js';

// Message search over Hermes' session database, as hermes_state `search_messages` (Hermes 0.22:
// hermes_state_search `_search_messages_impl`) answers it: the word index, the CJK trigram index,
// LIKE scans of the messages table where no index serves, and Hermes 0.22's retries. Runs on the
// read-only connection store.ts opened; the routes followed are the detected Hermes'.

/** Rewound/undone rows (`active=0, compacted=0`) stay hidden; compaction-archived rows are history. */
export const VISIBLE = '(m.active = 1 OR m.compacted = 1)';

/** A term in any of a message's searchable columns (hermes_state_search `_LIKE_ANY_COLUMN_SQL`). */
const ANY_COLUMN_LIKE = `(m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' OR m.tool_calls LIKE ? ESCAPE '\\')`;
/** The same over NULL-safe columns, so `NOT` holds for a row without tool calls (`_LIKE_COALESCED_COLUMN_SQL`). */
const COALESCED_COLUMN_LIKE = `(COALESCE(m.content, '') LIKE ? ESCAPE '\\' OR COALESCE(m.tool_name, '') LIKE ? ESCAPE '\\' OR COALESCE(m.tool_calls, '') LIKE ? ESCAPE '\\')`;

/** Whether the word index can answer: present and not marked stale (else every search scans the messages table). */
export function ftsUsable(facts: StateDbFacts): boolean {
  return facts.fts !== null && !facts.ftsStale;
}

export class MessageSearch {
  constructor(
    private readonly db: Database.Database,
    private readonly facts: StateDbFacts,
  ) {}

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
    if (!ftsUsable(this.facts)) return { hits: this.likeBoolean(sanitized, opts), route: 'like' };
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
}
