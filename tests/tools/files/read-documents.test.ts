import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ErrorCode } from '../../../shared/errors.js';
import { closeCpuPool } from '../../../supervisor/platform/thread-pool/pool.js';
import { pyFloat } from '../../../supervisor/tools/files/read/extract/sqlite.js';
import { Cases, call, ctx, expectCode, text } from './fixture.js';

// read_file's documents as Hermes after 0.19 renders them, where the gateway renders them itself:
// SQLite databases (from the bytes read, nothing else opened or written), notebooks' outputs, the
// failures Hermes refuses with their reason; and the formats only Hermes' own extractor renders,
// refused saying so when no Hermes is there to call. The read_file fidelity suite compares all of
// them with Hermes (tests/fidelity/cases/read_file.yaml); read-documents-hermes.test.ts calls a real
// Hermes' extractor.

const cases = new Cases();
after(async () => {
  cases.cleanup();
  await closeCpuPool();
});

/** A database file written by SQLite itself at `path`. */
function database(path: string, sql: string, wal = false): void {
  const db = new Database(path);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec(sql);
  db.close();
}

describe('read_file: SQLite databases (Hermes after 0.19)', () => {
  test('schema, row counts and the first five rows, values as Python prints them', async () => {
    const c = cases.make();
    database(
      c.p('app.db'),
      `CREATE TABLE t (id INTEGER PRIMARY KEY, v REAL, b BLOB, s TEXT);
       INSERT INTO t VALUES (1, 2.0, x'0001', 'a|b'), (2, 1e16, NULL, 'line
break'), (3, 0.0001, NULL, '${'z'.repeat(90)}'), (4, NULL, NULL, NULL), (5, -1.5e-7, NULL, ''), (6, 0, NULL, 'six');
       CREATE INDEX t_s ON t(s);`,
    );
    const r = await call(c.read, { path: 'app.db' });
    assert.equal(r.extracted_document, true);
    assert.equal(
      r.content,
      [
        '1|# SQLite database',
        '2|',
        '3|1 table(s), 1 index/view/trigger(s)',
        '4|',
        '5|## t  (6 rows)',
        '6|CREATE TABLE t (id INTEGER PRIMARY KEY, v REAL, b BLOB, s TEXT)',
        '7|| id | v | b | s |',
        '8||---|---|---|---|',
        '9|| 1 | 2.0 | <blob 2 bytes> | a\\|b |',
        '10|| 2 | 1e+16 | NULL | line break |',
        `11|| 3 | 0.0001 | NULL | ${'z'.repeat(79)}… |`,
        '12|| 4 | NULL | NULL | NULL |',
        '13|| 5 | -1.5e-07 | NULL |  |',
        '14|',
        '15|## Indexes / views / triggers',
        '16|- index t_s',
        '17|',
        "18|Query it with the terminal: sqlite3 <path> 'SELECT ...'  (or Python's sqlite3 module).",
      ].join('\n'),
    );
  });

  test('read from its bytes: a live WAL database is shown as its main file holds it, and no side file appears', async () => {
    const c = cases.make();
    const path = c.p('live.sqlite');
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE kept (x); INSERT INTO kept VALUES (1);');
    writer.pragma('wal_checkpoint(TRUNCATE)');
    writer.exec('INSERT INTO kept VALUES (2);'); // only in the -wal file, which Hermes' copy does not have
    try {
      const before = fs.readdirSync(c.proj).sort();
      const r = await call(c.read, { path: 'live.sqlite' });
      assert.match(text(r.content), /## kept {2}\(1 rows\)/);
      assert.deepEqual(fs.readdirSync(c.proj).sort(), before);
    } finally {
      writer.close();
    }
  });

  test('a .db that is not SQLite, and a damaged one, are refused with the reason; Hermes 0.19 refuses them by extension', async () => {
    const c = cases.make();
    c.file('notes.db', 'just text\n');
    const e = await expectCode(c.read.handler({ path: 'notes.db' }, ctx), ErrorCode.FILE_EXTRACTION_FAILED);
    assert.equal(e.message, "Cannot read 'notes.db' (.db): document extraction failed — not a SQLite database (magic bytes do not match). Use terminal utilities to inspect or convert the file.");
    database(c.p('x.sqlite3'), 'CREATE TABLE t (a); INSERT INTO t VALUES (1);');
    const bytes = fs.readFileSync(c.p('x.sqlite3'));
    bytes.fill(0xff, 100, 400); // the schema page
    fs.writeFileSync(c.p('x.sqlite3'), bytes);
    const damaged = await expectCode(c.read.handler({ path: 'x.sqlite3' }, ctx), ErrorCode.FILE_EXTRACTION_FAILED);
    assert.match(damaged.message, /document extraction failed — SQLite read failed: /);
    const old = cases.make({ hermes: '0.19.0' });
    old.file('notes.db', 'just text\n');
    assert.match((await expectCode(old.read.handler({ path: 'notes.db' }, ctx), ErrorCode.FILE_BINARY)).message, /^Cannot read binary file 'notes\.db' \(\.db\)/);
  });

  test('only what the file stores is read: a VIRTUAL generated column shows <generated>, a STORED one its value, a virtual table is listed and not read', async () => {
    const c = cases.make();
    const path = c.p('costly.db');
    // Each `b` would be a 400,000,000-character hex string computed on every read (Hermes' SELECT *
    // does); `c` was computed once, when the row was written. `notes` is an FTS5 table (its module
    // would run to count and preview it), `gone` one whose module no SQLite here has (SQLite itself
    // stores a virtual table as this row, rootpage 0; Hermes refuses the file: "no such module").
    database(
      path,
      `CREATE TABLE t (a INTEGER, b AS (length(hex(zeroblob(200000000)))), c TEXT AS (a || 'x') STORED);
       INSERT INTO t(a) VALUES (1), (2);
       CREATE VIRTUAL TABLE notes USING fts5(body);
       INSERT INTO notes VALUES ('hello world');`,
    );
    const db = new Database(path);
    db.unsafeMode(true); // lets writable_schema write sqlite_master (better-sqlite3 is defensive by default)
    db.pragma('writable_schema = ON');
    db.prepare("INSERT INTO sqlite_master VALUES ('table', 'gone', 'gone', 0, 'CREATE VIRTUAL TABLE gone USING nosuch(x)')").run();
    db.close();
    const bytes = fs.statSync(path).size;
    assert.ok(bytes < 64 * 1024, `a small file (${bytes} bytes)`);
    const r = await call(c.read, { path: 'costly.db' });
    assert.equal(r.extracted_document, true);
    assert.equal(
      text(r.content).replace(/^ *\d+\|/gm, ''),
      [
        '# SQLite database',
        '',
        '8 table(s), 0 index/view/trigger(s)',
        '',
        '## gone  (virtual table, not read)',
        'CREATE VIRTUAL TABLE gone USING nosuch(x)',
        '',
        '## notes  (virtual table, not read)',
        'CREATE VIRTUAL TABLE notes USING fts5(body)',
        '',
        '## notes_config  (1 rows)',
        "CREATE TABLE 'notes_config'(k PRIMARY KEY, v) WITHOUT ROWID",
        '| k | v |',
        '|---|---|',
        '| version | 4 |',
        '',
        '## notes_content  (1 rows)',
        "CREATE TABLE 'notes_content'(id INTEGER PRIMARY KEY, c0)",
        '| id | c0 |',
        '|---|---|',
        '| 1 | hello world |',
        '',
        '## notes_data  (3 rows)',
        "CREATE TABLE 'notes_data'(id INTEGER PRIMARY KEY, block BLOB)",
        '| id | block |',
        '|---|---|',
        '| 1 | <blob 2 bytes> |',
        '| 10 | <blob 12 bytes> |',
        '| 137438953473 | <blob 26 bytes> |',
        '',
        '## notes_docsize  (1 rows)',
        "CREATE TABLE 'notes_docsize'(id INTEGER PRIMARY KEY, sz BLOB)",
        '| id | sz |',
        '|---|---|',
        '| 1 | <blob 1 bytes> |',
        '',
        '## notes_idx  (1 rows)',
        "CREATE TABLE 'notes_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID",
        '| segid | term | pgno |',
        '|---|---|---|',
        '| 1 | <blob 0 bytes> | 2 |',
        '',
        '## t  (2 rows)',
        "CREATE TABLE t (a INTEGER, b AS (length(hex(zeroblob(200000000)))), c TEXT AS (a || 'x') STORED)",
        '| a | b | c |',
        '|---|---|---|',
        '| 1 | <generated> | 1x |',
        '| 2 | <generated> | 2x |',
        '',
        "Query it with the terminal: sqlite3 <path> 'SELECT ...'  (or Python's sqlite3 module).",
      ].join('\n'),
    );
  });

  test("Python's repr of floats", () => {
    const cases: Array<[number, string]> = [
      [1e16, '1e+16'],
      [1e15, '1000000000000000.0'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [123456789012345678, '1.2345678901234568e+17'],
      [-0, '-0.0'],
      [2, '2.0'],
      [1 / 3, '0.3333333333333333'],
      [1e22, '1e+22'],
      [5e-324, '5e-324'],
      [Infinity, 'inf'],
      [NaN, 'nan'],
    ];
    for (const [x, repr] of cases) assert.equal(pyFloat(x), repr, String(x));
  });
});

describe('read_file: notebooks (Hermes after 0.19)', () => {
  test("a code cell's outputs past 20,000 characters are cut with a jq pointer to the rest, the path shell-quoted", async () => {
    const c = cases.make();
    c.file('my notes.ipynb', JSON.stringify({ cells: [{ cell_type: 'code', source: 'x', outputs: [{ output_type: 'stream', text: 'y'.repeat(25_000) }] }] }));
    const r = await call(c.read, { path: 'my notes.ipynb' });
    const lines = text(r.content).split('\n');
    assert.equal(lines[4], '5|' + 'y'.repeat(2000) + '... [truncated]');
    assert.equal(lines[5], `6|… [5,000 output chars truncated — full output: jq -r '.cells[0].outputs' '${c.p('my notes.ipynb')}']`);
    // 0.19 shows the cells only.
    const old = cases.make({ hermes: '0.19.0' });
    old.file('a.ipynb', JSON.stringify({ cells: [{ cell_type: 'code', source: 'x', outputs: [{ output_type: 'stream', text: 'out\n' }] }] }));
    assert.equal((await call(old.read, { path: 'a.ipynb' })).content, '1|# ── Code cell 1 ──\n2|x');
  });

  test('a blank line at the end of a page is not numbered, as newer Hermes numbers a page it joined', async () => {
    const c = cases.make();
    c.file('n.ipynb', JSON.stringify({ cells: [{ cell_type: 'markdown', source: 'a' }, { cell_type: 'markdown', source: 'b' }] }));
    assert.equal((await call(c.read, { path: 'n.ipynb', limit: 3 })).content, '1|# ── Markdown cell 1 ──\n2|a');
    const old = cases.make({ hermes: '0.19.0' });
    old.file('n.ipynb', JSON.stringify({ cells: [{ cell_type: 'markdown', source: 'a' }, { cell_type: 'markdown', source: 'b' }] }));
    assert.equal((await call(old.read, { path: 'n.ipynb', limit: 3 })).content, '1|# ── Markdown cell 1 ──\n2|a\n3|');
  });
});

describe("read_file: the formats Hermes' own extractor renders", () => {
  test('without a Hermes to call, a PDF is refused saying what it needs, never shown as its bytes', async () => {
    const c = cases.make();
    c.file('report.pdf', '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
    const e = await expectCode(c.read.handler({ path: 'report.pdf' }, ctx), ErrorCode.HERMES_AGENT_NOT_INSTALLED);
    assert.equal(
      e.message,
      "Cannot read 'report.pdf' (.pdf): rendering this document needs Hermes Agent's own document extractor, and no Hermes Agent was found (set HERMES_AGENT_PYTHON to its interpreter). Use terminal utilities to inspect or convert the file.",
    );
    // Missing, it is Hermes' failure to read it.
    const missing = await expectCode(c.read.handler({ path: 'gone.epub' }, ctx), ErrorCode.FILE_EXTRACTION_FAILED);
    assert.equal(missing.message, `Cannot read 'gone.epub' (.epub): document extraction failed — File not found: ${c.p('gone.epub')}. Use terminal utilities to inspect or convert the file.`);
  });

  test('Hermes 0.19 renders none of them: a PDF is read as the text it holds, an OpenDocument refused by extension', async () => {
    const c = cases.make({ hermes: '0.19.0' });
    c.file('report.pdf', '%PDF-1.4\n1 0 obj\n');
    assert.equal((await call(c.read, { path: 'report.pdf' })).content, '1|%PDF-1.4\n2|1 0 obj');
    c.file('m.odt', 'PK');
    await expectCode(c.read.handler({ path: 'm.odt' }, ctx), ErrorCode.FILE_BINARY);
  });

  test('a missing notebook is read as any missing file; a missing Word document is Hermes\' extraction failure', async () => {
    const c = cases.make();
    const nb = await expectCode(c.read.handler({ path: 'gone.ipynb' }, ctx), ErrorCode.FILE_NOT_FOUND);
    assert.equal(nb.details?.not_found, true);
    fs.mkdirSync(join(c.proj, 'dir.xlsx'));
    const dir = await expectCode(c.read.handler({ path: 'dir.xlsx' }, ctx), ErrorCode.FILE_EXTRACTION_FAILED);
    assert.match(dir.message, /document extraction failed — Cannot read '.*dir\.xlsx': not a regular file \(directory, dangling symlink, FIFO, socket, or device\)/);
  });
});
