import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { codePoints, formatCount } from '../format.js';
import { ExtractionError } from './text.js';

// read_file's SQLite databases as text (Hermes after 0.19, tools/read_extract.py `_extract_sqlite`):
// a schema overview — per table its CREATE statement, its row count and its first five rows as a
// Markdown table — then the indexes, views and triggers. The database is opened from the bytes
// read_file already read (better-sqlite3's deserialize): nothing is opened by path, no lock is
// taken and no journal or WAL file is ever written or read, as Hermes' `mode=ro&immutable=1` of a
// copy does. better-sqlite3 is loaded on first use (rendering runs on the CPU pool).
//
// One difference from Hermes, on purpose: only what the file stores is read. Hermes' `SELECT *`
// computes a table's VIRTUAL generated columns, and its COUNT(*) and `SELECT *` of a virtual table
// run that table's module; a caller-supplied database of a few KB can make either take hundreds of
// MB and seconds of CPU (`b AS (hex(zeroblob(200000000)))`), here inside the gateway's own process,
// which serves every client (the CPU pool's threads have no deadline). What is read here is what
// the file holds, which read_file's MAX_DOCUMENT_BYTES bounds. So a generated column that is not
// stored keeps its place in the table (as `SELECT *` lists it) and shows `<generated>` in every
// row, in the cell form Hermes uses for what it does not show (`<blob N bytes>`); a STORED
// generated column is read as stored. A virtual table is listed with its CREATE statement under
// `## <name>  (virtual table, not read)`: neither counted nor previewed (its shadow tables,
// ordinary tables, are read like any other).

const requireHere = createRequire(import.meta.url);
let sqliteModule: typeof BetterSqlite3 | undefined;
const sqliteLib = (): typeof BetterSqlite3 => (sqliteModule ??= requireHere('better-sqlite3') as typeof BetterSqlite3);

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const PREVIEW_ROWS = 5;
const MAX_TABLES = 200;
const CELL_CHARS = 80;

/** Python's `repr(float)`: the shortest digits, fixed between 1e-4 and 1e16, else `d.ddde±XX`. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exp] = x.toExponential().split('e') as [string, string];
  const exponent = Number(exp);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exponent >= -4 && exponent < 16) {
    const point = exponent + 1;
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const frac = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${frac}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** Hermes `_sqlite_cell`: NULL, `<blob N bytes>`, or the value's text with `|` escaped, on one line, at most 80 characters. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Buffer.isBuffer(value)) return `<blob ${value.length} bytes>`;
  const text = (typeof value === 'number' ? pyFloat(value) : String(value)).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return codePoints(text) <= CELL_CHARS ? text : Array.from(text).slice(0, CELL_CHARS - 1).join('') + '…';
}

/** A generated column that is not stored: its cell (SQLite would compute it on every read). */
const GENERATED_CELL = '<generated>';

/** PRAGMA table_xinfo's `hidden`: 0 an ordinary column, 1 a virtual table's hidden column, 2 a VIRTUAL generated column, 3 a STORED one. */
const HIDDEN_COLUMN = 1n;
const VIRTUAL_GENERATED = 2n;

const quoteName = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Python's `str.strip()` of a CREATE statement. */
const strip = (s: string): string => s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/gu, '');

/** The database in `bytes` as Hermes renders it; a file that is not SQLite throws ExtractionError. */
export function sqliteText(bytes: Buffer): string {
  if (bytes.length < SQLITE_MAGIC.length || !bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    throw new ExtractionError('not a SQLite database (magic bytes do not match)');
  }
  // A WAL-mode header (file format versions 2) cannot be opened from memory; as a copy of the main
  // file alone (what Hermes reads) it is a rollback-journal database: say so in our own copy.
  const own = Buffer.from(bytes);
  if (own.length >= 20 && (own[18] === 2 || own[19] === 2)) {
    own[18] = 1;
    own[19] = 1;
  }
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new (sqliteLib())(own, { readonly: true });
    db.defaultSafeIntegers(true); // integers as Python shows them, past 2^53 too
    const objects = db.prepare('SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type DESC, name').all() as Array<{ type: string; name: string; sql: string }>;
    const tables = objects.filter((o) => o.type === 'table');
    const others = objects.filter((o) => o.type !== 'table');
    // Which tables are virtual, as SQLite itself parsed the schema (never guessed from the text).
    const virtual = new Set((db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'").pluck().all() as string[]));
    const out = ['# SQLite database', '', `${tables.length} table(s), ${others.length} index/view/trigger(s)`];
    for (const { name, sql } of tables.slice(0, MAX_TABLES)) {
      if (virtual.has(name)) {
        out.push('', `## ${name}  (virtual table, not read)`, strip(sql));
        continue;
      }
      const quoted = quoteName(name);
      const count = (db.prepare(`SELECT COUNT(*) FROM ${quoted}`).pluck().get() as bigint).toString();
      out.push('', `## ${name}  (${formatCount(Number(count))} rows)`, strip(sql));
      // The columns `SELECT *` shows, in its order; only the stored ones are selected (SQLite
      // refuses a table without one: "must have at least one non-generated column").
      const columns = (db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(name) as Array<{ name: string; hidden: bigint }>).filter((c) => c.hidden !== HIDDEN_COLUMN);
      const stored = columns.filter((c) => c.hidden !== VIRTUAL_GENERATED);
      const rows = db.prepare(`SELECT ${stored.map((c) => quoteName(c.name)).join(', ')} FROM ${quoted} LIMIT ${PREVIEW_ROWS}`).raw(true).all() as unknown[][];
      if (rows.length > 0) {
        out.push(`| ${columns.map((c) => c.name).join(' | ')} |`, `|${'---|'.repeat(columns.length)}`);
        for (const row of rows) {
          let next = 0;
          out.push(`| ${columns.map((c) => (c.hidden === VIRTUAL_GENERATED ? GENERATED_CELL : cell(row[next++]))).join(' | ')} |`);
        }
      }
    }
    if (tables.length > MAX_TABLES) out.push(`\n... ${tables.length - MAX_TABLES} more tables omitted`);
    if (others.length > 0) out.push('', '## Indexes / views / triggers', ...others.map((o) => `- ${o.type} ${o.name}`));
    out.push('', "Query it with the terminal: sqlite3 <path> 'SELECT ...'  (or Python's sqlite3 module).");
    return out.join('\n');
  } catch (e) {
    if (e instanceof ExtractionError) throw e;
    throw new ExtractionError(`SQLite read failed: ${(e as Error).message}`);
  } finally {
    db?.close();
  }
}
