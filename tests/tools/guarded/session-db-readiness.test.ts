import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeHermesHome, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { OLDEST_SUPPORTED_SCHEMA_VERSION, SUPPORTED_SCHEMA_VERSION } from '../../../supervisor/tools/guarded/session-search/store.js';
import { installStateDb, standardStateDb } from '../../fixtures/hermes-home.js';

// /readyz's `session_db` component: state.db opened read-only exactly as session_search opens it.
// Every database here is a private copy of one the pinned Hermes wrote (hermes_state.SessionDB,
// tests/hermes/drivers/session_db.py); the original is only read.

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

  test('no state.db yet (Hermes has not run here): ready, status missing, /readyz 200, nothing created', async () => {
    const { status, body } = await readyz(gw.url);
    const c = body.components.session_db!;
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual([c.ready, c.required, c.status], [true, true, 'missing']);
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
    assert.equal(c.details!.schema_version, SUPPORTED_SCHEMA_VERSION);
    assert.equal(c.details!.trigram_index, true);
    assert.equal(sha256(db), hash, 'read-only: no migration, no write');
    // Cheap: repeated probes stay fast.
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) assert.equal((await readyz(gw.url)).status, 200);
    assert.ok(Date.now() - t0 < 2_000, `10 probes took ${Date.now() - t0} ms`);
    assert.equal(sha256(db), hash);
  });

  test('a newer schema is not ready: 503 with STATE_DB_SCHEMA_TOO_NEW, the file left exactly as it was', async () => {
    // By hand: a future Hermes' version number on the database this Hermes wrote.
    const future = SUPPORTED_SCHEMA_VERSION + 1;
    const db = install((w) => w.prepare('UPDATE schema_version SET version = ?').run(future));
    const hash = sha256(db);
    const { status, body } = await readyz(gw.url);
    const c = body.components.session_db!;
    assert.equal(status, 503, JSON.stringify(body));
    assert.equal(body.status, 'not_ready');
    assert.deepEqual([c.ready, c.status], [false, 'error']);
    assert.match(c.reason!, /^STATE_DB_SCHEMA_TOO_NEW: /);
    assert.match(c.reason!, new RegExp(`version ${future}\\b`));
    assert.equal(c.details!.schema_version, future);
    assert.equal(c.details!.supported_schema_version, SUPPORTED_SCHEMA_VERSION);
    assert.equal(c.details!.oldest_supported_schema_version, OLDEST_SUPPORTED_SCHEMA_VERSION);
    assert.equal(sha256(db), hash, 'never migrated or touched');
  });

  test('an older schema, a foreign database and a non-database file are not ready, each with its stable code', async () => {
    // By hand, from the database Hermes wrote: states this Hermes never leaves behind.
    install((w) => w.prepare('UPDATE schema_version SET version = ?').run(OLDEST_SUPPORTED_SCHEMA_VERSION - 1));
    let r = await readyz(gw.url);
    assert.equal(r.status, 503);
    assert.match(r.body.components.session_db!.reason!, /^STATE_DB_SCHEMA_UNSUPPORTED: .*older/);

    install((w) => w.exec('DROP TABLE messages_fts'));
    r = await readyz(gw.url);
    assert.equal(r.status, 503);
    assert.match(r.body.components.session_db!.reason!, /^STATE_DB_SCHEMA_UNSUPPORTED: .*missing table messages_fts/);

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
      const t0 = Date.now();
      const { status, body } = await readyz(gw.url);
      const elapsed = Date.now() - t0;
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
