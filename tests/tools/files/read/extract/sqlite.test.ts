import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { describe, test } from 'node:test';
import { pyFloat, sqliteText } from '../../../../../supervisor/tools/files/read/extract/sqlite.js';
import { ExtractionError } from '../../../../../supervisor/tools/files/read/extract/text.js';

function database(sql: string): Buffer {
  const db = new Database(':memory:');
  db.exec(sql);
  const bytes = db.serialize();
  db.close();
  return bytes;
}

test("pyFloat renders as Python's repr(float)", () => {
  assert.deepEqual(
    [1, 1.5, -2.25, 0, -0, 0.0001, 0.00001, 1e15, 1e16, 123456789012345680000, 1.5e-7, NaN, Infinity, -Infinity, 100].map(pyFloat),
    ['1.0', '1.5', '-2.25', '0.0', '-0.0', '0.0001', '1e-05', '1000000000000000.0', '1e+16', '1.2345678901234568e+20', '1.5e-07', 'nan', 'inf', '-inf', '100.0'],
  );
});

describe('sqliteText', () => {
  test('tables with CREATE, row count and the first five rows; then indexes, views and triggers', () => {
    const bytes = database(`
      CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
      INSERT INTO t VALUES (1, 'a|b', 2.5, NULL), (2, 'line1\nline2', 3, x'0102'), (3, 'c', NULL, NULL), (4, 'd', 1, NULL), (5, 'e', 1, NULL), (6, 'f', 1, NULL);
      CREATE TABLE empty (x);
      CREATE INDEX t_name ON t(name);
      CREATE VIEW v AS SELECT name FROM t;
    `);
    assert.equal(
      sqliteText(bytes),
      [
        '# SQLite database',
        '',
        '2 table(s), 2 index/view/trigger(s)',
        '',
        '## empty  (0 rows)',
        'CREATE TABLE empty (x)',
        '',
        '## t  (6 rows)',
        'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)',
        '| id | name | score | data |',
        '|---|---|---|---|',
        '| 1 | a\\|b | 2.5 | NULL |',
        '| 2 | line1 line2 | 3.0 | <blob 2 bytes> |',
        '| 3 | c | NULL | NULL |',
        '| 4 | d | 1.0 | NULL |',
        '| 5 | e | 1.0 | NULL |',
        '',
        '## Indexes / views / triggers',
        '- view v',
        '- index t_name',
        '',
        "Query it with the terminal: sqlite3 <path> 'SELECT ...'  (or Python's sqlite3 module).",
      ].join('\n'),
    );
  });

  test('integers past 2^53 exactly; long cells cut at 80 characters', () => {
    const text = sqliteText(database(`CREATE TABLE n (big INTEGER, s TEXT); INSERT INTO n VALUES (9007199254740993, '${'z'.repeat(100)}');`));
    assert.ok(text.includes(`| 9007199254740993 | ${'z'.repeat(79)}… |`), text);
  });

  test('a VIRTUAL generated column is not computed; a STORED one is read', () => {
    const text = sqliteText(database('CREATE TABLE g (a INTEGER, v AS (a * 2) VIRTUAL, s AS (a * 3) STORED); INSERT INTO g (a) VALUES (7);'));
    assert.ok(text.includes('| a | v | s |\n|---|---|---|\n| 7 | <generated> | 21 |'), text);
  });

  test('a virtual table is listed, not read', () => {
    const text = sqliteText(database("CREATE VIRTUAL TABLE f USING fts5(body); INSERT INTO f VALUES ('hello');"));
    assert.ok(text.includes('## f  (virtual table, not read)\nCREATE VIRTUAL TABLE f USING fts5(body)'), text);
  });

  test('a WAL-mode header is read as its main file', () => {
    const bytes = database('CREATE TABLE w (x); INSERT INTO w VALUES (1);');
    bytes[18] = 2;
    bytes[19] = 2;
    assert.ok(sqliteText(bytes).includes('## w  (1 rows)'));
    assert.equal(bytes[18], 2, 'the caller bytes are not modified');
  });

  test('what is not SQLite, or is damaged, is an ExtractionError', () => {
    assert.throws(() => sqliteText(Buffer.from('not a database at all')), { message: 'not a SQLite database (magic bytes do not match)' });
    const damaged = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(200, 0xff)]);
    assert.throws(() => sqliteText(damaged), (e: unknown) => e instanceof ExtractionError && e.message.startsWith('SQLite read failed: '));
  });
});
