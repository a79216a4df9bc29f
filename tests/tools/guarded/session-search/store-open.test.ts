import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  isSqliteError,
  isTransientReadError,
  NEWEST_KNOWN_SCHEMA_VERSION,
  OLDEST_SUPPORTED_SCHEMA_VERSION,
  openStateDb,
  sqliteCode,
  StoreError,
  storeErrorFrom,
} from '../../../../supervisor/tools/guarded/session-search/store-open.js';
import { installStateDb, standardStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// Opening state.db for session_search: the error mapping, and what the open reads of databases the
// pinned Hermes wrote (tests/fixtures/hermes-home.ts); a mutation by hand is a state Hermes never leaves.

const temp = tempDirs();
after(() => temp.removeAll());

const sqliteErr = (code: string) => Object.assign(new Error(`sqlite said ${code}`), { code });

function storeError(code: string, check: (e: StoreError) => void = () => undefined) {
  return (e: unknown) => {
    assert.ok(e instanceof StoreError, String(e));
    assert.equal(e.code, code, e.message);
    check(e);
    return true;
  };
}

describe('error mapping', () => {
  test('sqliteCode, isSqliteError, isTransientReadError', () => {
    assert.equal(sqliteCode(sqliteErr('SQLITE_BUSY')), 'SQLITE_BUSY');
    assert.equal(sqliteCode(new Error('x')), '');
    assert.equal(sqliteCode(null), '');
    assert.equal(isSqliteError(sqliteErr('SQLITE_CORRUPT')), true);
    assert.equal(isSqliteError(sqliteErr('ENOENT')), false);
    assert.deepEqual(['SQLITE_IOERR_SHORT_READ', 'SQLITE_BUSY_RECOVERY', 'SQLITE_PROTOCOL', 'SQLITE_BUSY', 'SQLITE_CORRUPT'].map((c) => isTransientReadError(sqliteErr(c))), [true, true, true, false, false]);
  });

  test('busy and locked become BUSY; a missing file STATE_DB_MISSING; the rest STATE_DB_UNAVAILABLE with the SQLite code', () => {
    const path = join(temp.make('sso-'), 'state.db');
    assert.equal(storeErrorFrom(sqliteErr('SQLITE_BUSY_SNAPSHOT'), path).code, 'BUSY');
    assert.equal(storeErrorFrom(sqliteErr('SQLITE_LOCKED'), path).message, `the Hermes session database ${path} stayed locked by a writer for 5s; try again`);
    assert.equal(storeErrorFrom(sqliteErr('SQLITE_CANTOPEN'), path).code, 'STATE_DB_MISSING');
    writeFileSync(path, '');
    const unavailable = storeErrorFrom(sqliteErr('SQLITE_CANTOPEN'), path);
    assert.deepEqual([unavailable.code, unavailable.message, unavailable.details], ['STATE_DB_UNAVAILABLE', `the Hermes session database ${path} cannot be read: sqlite said SQLITE_CANTOPEN`, { sqlite_code: 'SQLITE_CANTOPEN' }]);
    assert.deepEqual(storeErrorFrom(new Error('odd'), path).details, { sqlite_code: undefined });
    const own = new StoreError('X', 'y');
    assert.equal(storeErrorFrom(own, path), own);
  });
});

describe('openStateDb', () => {
  test("the database this Hermes writes: its facts", () => {
    const home = temp.make('sso-');
    const { db, facts } = openStateDb(installStateDb(home));
    try {
      assert.equal(facts.version, standardStateDb().schema_version);
      assert.equal(facts.trigram, true);
      assert.equal(facts.ftsStale, false);
      assert.equal(facts.rebuild, null);
      assert.ok(facts.fts !== null);
      assert.equal(db.readonly, true);
    } finally {
      db.close();
    }
  });

  test("state_meta's rebuild marks give the rebuild's progress", () => {
    const home = temp.make('sso-');
    const path = installStateDb(home, (w) => {
      w.exec('CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)');
      w.prepare(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('fts_rebuild_high_water', '300'), ('fts_rebuild_progress', '100')`).run();
    });
    const { db, facts } = openStateDb(path);
    db.close();
    assert.deepEqual(facts.rebuild, { total: 300, indexed: 100, percent: 33 });
  });

  test('missing, a directory, a foreign database, an empty one', () => {
    const dir = temp.make('sso-');
    assert.throws(() => openStateDb(join(dir, 'none.db')), storeError('STATE_DB_MISSING'));
    mkdirSync(join(dir, 'sub.db'));
    assert.throws(() => openStateDb(join(dir, 'sub.db')), storeError('STATE_DB_UNAVAILABLE', (e) => assert.match(e.message, /is not a regular file/)));
    const foreign = join(dir, 'foreign.db');
    const f = new Database(foreign);
    f.exec('CREATE TABLE notes (id INTEGER); CREATE TABLE sessions (id TEXT)');
    f.close();
    assert.throws(
      () => openStateDb(foreign),
      storeError('STATE_DB_SCHEMA_UNSUPPORTED', (e) => {
        assert.equal(e.message, `${foreign} is not a Hermes session database this gateway can read (missing table messages)`);
        assert.deepEqual(e.details, { oldest_supported_schema_version: OLDEST_SUPPORTED_SCHEMA_VERSION, newest_known_schema_version: NEWEST_KNOWN_SCHEMA_VERSION });
      }),
    );
    const empty = join(dir, 'empty.db');
    const e = new Database(empty);
    e.exec('CREATE TABLE async_delegations (id TEXT)');
    e.close();
    assert.throws(() => openStateDb(empty), storeError('STATE_DB_MISSING', (e) => assert.match(e.message, /only async_delegations, made by another part of Hermes/)));
    writeFileSync(join(dir, 'text.db'), 'plain text, no database at all, long enough for a header.\n'.repeat(10));
    assert.throws(() => openStateDb(join(dir, 'text.db')), storeError('STATE_DB_UNAVAILABLE'));
  });

  test('schema versions: too old is refused; a column missing is TOO_NEW above the newest known, UNSUPPORTED otherwise', () => {
    const home = temp.make('sso-');
    const old = installStateDb(home, (w) => w.prepare('UPDATE schema_version SET version = ?').run(OLDEST_SUPPORTED_SCHEMA_VERSION - 1));
    assert.throws(() => openStateDb(old), storeError('STATE_DB_SCHEMA_UNSUPPORTED', (e) => assert.deepEqual(e.details?.schema_version, OLDEST_SUPPORTED_SCHEMA_VERSION - 1)));
    const dropTitle = (version: number) => (w: Database.Database) => {
      w.prepare('UPDATE schema_version SET version = ?').run(version);
      const dependents = w.prepare(`SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql LIKE '%title%'`).all() as Array<{ type: string; name: string }>;
      for (const d of dependents) w.exec(`DROP ${d.type.toUpperCase()} IF EXISTS "${d.name}"`);
      w.exec('ALTER TABLE sessions DROP COLUMN title');
    };
    const newer = installStateDb(home, dropTitle(NEWEST_KNOWN_SCHEMA_VERSION + 1));
    assert.throws(() => openStateDb(newer), storeError('STATE_DB_SCHEMA_TOO_NEW', (e) => assert.deepEqual(e.details?.missing_columns, ['sessions.title'])));
    const same = installStateDb(home, dropTitle(NEWEST_KNOWN_SCHEMA_VERSION));
    assert.throws(() => openStateDb(same), storeError('STATE_DB_SCHEMA_UNSUPPORTED', (e) => assert.match(e.message, /has no sessions\.title, which this gateway reads; run Hermes once/)));
  });
});
