import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeHermesHome, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { NEWEST_KNOWN_SCHEMA_VERSION, OLDEST_SUPPORTED_SCHEMA_VERSION } from '../../../supervisor/tools/guarded/session-search/store.js';
import { delegationStore, installStateDb, standardStateDb } from '../../fixtures/hermes-home.js';

// /readyz's `session_db` component: state.db opened read-only exactly as session_search opens it,
// by the same rule: read by what it holds, whatever its schema version. Every database here is a
// private copy of one the pinned Hermes wrote (hermes_state.SessionDB,
// tests/hermes/drivers/session_db.py: schema 22 for hermes-agent 0.19.0, 31 for Hermes 0.22); the
// original is only read.

const FIXTURE = standardStateDb().path;

type Component = { ready: boolean; required: boolean; status: string; reason?: string; details?: Record<string, unknown> };

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

async function readyz(url: string): Promise<{ status: number; body: { status: string; components: Record<string, Component> } }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; components: Record<string, Component> } };
}

describe('/readyz session_db', () => {
  let gw: TestGateway;
  let home: string;
  let fixtureHash: string;
  before(async () => {
    fixtureHash = sha256(FIXTURE);
    home = makeHermesHome();
    gw = await startTestGateway({ home });
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
    assert.equal(sha256(FIXTURE), fixtureHash, 'the original fixture is never written');
  });

  const install = (mutate?: (w: Database.Database) => void) => installStateDb(home, mutate);

  test('no state.db yet (Hermes has not run here): ready, status empty (nothing to search yet), /readyz 200, nothing created', async () => {
    const { status, body } = await readyz(gw.url);
    const c = body.components.session_db!;
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual([c.ready, c.required, c.status], [true, true, 'empty']);
    assert.match(c.reason!, /STATE_DB_MISSING/);
    assert.ok(!existsSync(join(home, 'state.db')), 'the probe never creates the database');
  });

  test("the schema this Hermes writes, readable: ready, status ok, with the schema version; the file is not changed", async () => {
    const db = install();
    const hash = sha256(db);
    const { status, body } = await readyz(gw.url);
    const c = body.components.session_db!;
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual([c.ready, c.status], [true, 'ok']);
    assert.equal(c.details!.schema_version, standardStateDb().schema_version);
    assert.equal(c.details!.schema_version, standardStateDb().code_schema_version);
    assert.equal(c.details!.trigram_index, true);
    // 0.19.0 writes the one-column index, Hermes 0.22 a fresh database's projection layout.
    assert.ok(['inline', 'projection'].includes(String(c.details!.fts_layout)), JSON.stringify(c.details));
    assert.equal(c.details!.fts_stale, false);
    assert.equal(c.details!.fts_rebuild, null);
    assert.equal(sha256(db), hash, 'read-only: no migration, no write');
    // Cheap: repeated probes stay fast.
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) assert.equal((await readyz(gw.url)).status, 200);
    assert.ok(performance.now() - t0 < 2_000, `10 probes took ${performance.now() - t0} ms`);
    assert.equal(sha256(db), hash);
  });

  test("the database Hermes' async-delegation store makes before any session: ready, status empty (no sessions yet)", async () => {
    // Hermes' own tools/async_delegation.py (0.22: reconcile_state_schema, no version row, no index).
    for (const f of ['state.db', 'state.db-wal', 'state.db-shm']) rmSync(join(home, f), { force: true });
    const { path } = delegationStore(home);
    const hash = sha256(path);
    const { status, body } = await readyz(gw.url);
    const c = body.components.session_db!;
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual([c.ready, c.status], [true, 'empty']);
    assert.match(c.reason!, /^STATE_DB_MISSING: no Hermes sessions in .*state\.db yet/);
    assert.equal(sha256(path), hash);
  });

  test('a newer schema with every column session_search reads is ready (ok); one without such a column is not: 503 STATE_DB_SCHEMA_TOO_NEW naming it', async () => {
    // By hand: a future Hermes' version number on the database this Hermes wrote.
    const future = NEWEST_KNOWN_SCHEMA_VERSION + 1;
    let db = install((w) => w.prepare('UPDATE schema_version SET version = ?').run(future));
    let r = await readyz(gw.url);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([r.body.components.session_db!.status, r.body.components.session_db!.details!.schema_version], ['ok', future]);
    // ... and the column it dropped (with the indexes, triggers and views naming it, as SQLite requires).
    db = install((w) => {
      w.prepare('UPDATE schema_version SET version = ?').run(future);
      const dependents = w.prepare(`SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql LIKE '%compacted%'`).all() as Array<{ type: string; name: string }>;
      for (const d of dependents) w.exec(`DROP ${d.type.toUpperCase()} IF EXISTS "${d.name}"`);
      w.exec('ALTER TABLE messages DROP COLUMN compacted');
    });
    const hash = sha256(db);
    r = await readyz(gw.url);
    const c = r.body.components.session_db!;
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.status, 'not_ready');
    assert.deepEqual([c.ready, c.status], [false, 'error']);
    assert.match(c.reason!, /^STATE_DB_SCHEMA_TOO_NEW: /);
    assert.match(c.reason!, new RegExp(`version ${future}\\b.*no longer has messages\\.compacted`));
    assert.equal(c.details!.schema_version, future);
    assert.deepEqual(c.details!.missing_columns, ['messages.compacted']);
    assert.equal(c.details!.newest_known_schema_version, NEWEST_KNOWN_SCHEMA_VERSION);
    assert.match((c as Component & { action?: string }).action ?? '', /knows Hermes' state\.db up to schema 31/);
    assert.equal(sha256(db), hash, 'never migrated or touched');
  });

  test('an index Hermes marked stale, or none at all: ready, status degraded, saying searches scan the messages table', async () => {
    // By hand: Hermes 0.22's fail-open flag (made where this Hermes has no state_meta table).
    install((w) => {
      w.exec('CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)');
      w.prepare(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('fts_stale', '1')`).run();
    });
    let r = await readyz(gw.url);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([r.body.components.session_db!.ready, r.body.components.session_db!.status], [true, 'degraded']);
    assert.match(r.body.components.session_db!.reason!, /stale; session_search scans the messages table/);
    assert.equal(r.body.components.session_db!.details!.fts_stale, true);
    install((w) => w.exec('DROP TABLE messages_fts'));
    r = await readyz(gw.url);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([r.body.components.session_db!.status, r.body.components.session_db!.details!.fts_layout], ['degraded', null]);
  });

  test('an older schema, a foreign database and a non-database file are not ready, each with its stable code', async () => {
    // By hand, from the database Hermes wrote: states this Hermes never leaves behind.
    install((w) => w.prepare('UPDATE schema_version SET version = ?').run(OLDEST_SUPPORTED_SCHEMA_VERSION - 1));
    let r = await readyz(gw.url);
    assert.equal(r.status, 503);
    assert.match(r.body.components.session_db!.reason!, /^STATE_DB_SCHEMA_UNSUPPORTED: .*older/);

    install((w) => w.exec('DROP TABLE messages'));
    r = await readyz(gw.url);
    assert.equal(r.status, 503);
    assert.match(r.body.components.session_db!.reason!, /^STATE_DB_SCHEMA_UNSUPPORTED: .*missing table messages/);

    const db = install();
    unlinkSync(db);
    const other = new Database(db);
    other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    other.close();
    r = await readyz(gw.url);
    assert.equal(r.status, 503);
    assert.match(r.body.components.session_db!.reason!, /^STATE_DB_SCHEMA_UNSUPPORTED: /);

    unlinkSync(db);
    writeFileSync(db, 'this is not an SQLite database, just text that is long enough to have a header.\n'.repeat(20));
    r = await readyz(gw.url);
    assert.equal(r.status, 503);
    assert.equal(r.body.components.session_db!.details!.code, 'STATE_DB_UNAVAILABLE');
    assert.match(r.body.components.session_db!.reason!, /^STATE_DB_UNAVAILABLE: /);

    // A good copy again: the same gateway is ready again (the database is opened per probe).
    install();
    r = await readyz(gw.url);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.components.session_db!.status, 'ok');
  });

  test("a writer's exclusive lock makes the probe report busy (still ready) after a short wait, never a long one", async () => {
    // By hand: a rollback-journal database (Hermes' own fallback where WAL is unavailable, e.g. NFS).
    const db = install((w) => w.pragma('journal_mode = DELETE'));
    const writer = new Database(db, { timeout: 0 });
    try {
      writer.exec('BEGIN EXCLUSIVE');
      const t0 = performance.now();
      const { status, body } = await readyz(gw.url);
      const elapsed = performance.now() - t0;
      const c = body.components.session_db!;
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual([c.ready, c.status], [true, 'busy']);
      assert.ok(elapsed < 2_000, `probe waited ${elapsed} ms`);
      writer.exec('ROLLBACK');
    } finally {
      writer.close();
    }
    assert.equal((await readyz(gw.url)).body.components.session_db!.status, 'ok');
  });
});
