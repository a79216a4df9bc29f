import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { codePoints, formatCount } from './read-format.js';
import { ExtractionError } from './read-extract-text.js';

// read_file's SQLite databases as text (Hermes after 0.19, tools/read_extract.py `_extract_sqlite`):
// a schema overview — per table its CREATE statement, its row count and its first five rows as a
// Markdown table — then the indexes, views and triggers. The database is opened from the bytes
// read_file already read (better-sqlite3's deserialize): nothing is opened by path, no lock is
// taken and no journal or WAL file is ever written or read, as Hermes' `mode=ro&immutable=1` of a
// copy does. better-sqlite3 is loaded on first use (rendering runs on the CPU pool).

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
    const out = ['# SQLite database', '', `${tables.length} table(s), ${others.length} index/view/trigger(s)`];
    for (const { name, sql } of tables.slice(0, MAX_TABLES)) {
      const quoted = `"${name.replace(/"/g, '""')}"`;
      const count = (db.prepare(`SELECT COUNT(*) FROM ${quoted}`).pluck().get() as bigint).toString();
      out.push('', `## ${name}  (${formatCount(Number(count))} rows)`, strip(sql));
      const select = db.prepare(`SELECT * FROM ${quoted} LIMIT ${PREVIEW_ROWS}`).raw(true);
      const cols = select.columns().map((c) => c.name);
      const rows = select.all() as unknown[][];
      if (rows.length > 0) {
        out.push(`| ${cols.join(' | ')} |`, `|${'---|'.repeat(cols.length)}`);
        for (const row of rows) out.push(`| ${row.map(cell).join(' | ')} |`);
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
