import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../../supervisor/platform/config.js';
import { sessionDbReadiness } from '../../../../supervisor/tools/guarded/session-search/readiness.js';
import { NEWEST_KNOWN_SCHEMA_VERSION, OLDEST_SUPPORTED_SCHEMA_VERSION } from '../../../../supervisor/tools/guarded/session-search/store.js';
import { installStateDb, standardStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// The session_db /readyz component's probe, called directly over databases the pinned Hermes wrote
// (tests/fixtures/hermes-home.ts); a mutation by hand is a state Hermes itself never leaves.

const temp = tempDirs();
after(() => temp.removeAll());

function probe(home: string) {
  return sessionDbReadiness(loadConfig({ HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state') })).probe();
}

test('no state.db: ready and empty, STATE_DB_MISSING the reason', async () => {
  const home = temp.make('ssr-');
  const r = await probe(home);
  assert.deepEqual([r.ready, r.status, r.details], [true, 'empty', { path: join(home, 'state.db') }]);
  assert.match(r.reason!, /^STATE_DB_MISSING: no Hermes session database at /);
});

test("the schema this Hermes writes: ok, with the schema version and the index's layout", async () => {
  const home = temp.make('ssr-');
  installStateDb(home);
  const r = await probe(home);
  assert.deepEqual([r.ready, r.status], [true, 'ok']);
  const d = r.details!;
  assert.equal(d.path, join(home, 'state.db'));
  assert.equal(d.schema_version, standardStateDb().schema_version);
  assert.equal(d.trigram_index, true);
  assert.equal(d.fts_stale, false);
  assert.equal(d.fts_rebuild, null);
  assert.ok(['inline', 'projection'].includes(String(d.fts_layout)), JSON.stringify(d));
});

test('an index marked stale, or none: degraded, each reason its own', async () => {
  const home = temp.make('ssr-');
  const db = installStateDb(home, (w) => {
    w.exec('CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)');
    w.prepare(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('fts_stale', '1')`).run();
  });
  let r = await probe(home);
  assert.deepEqual([r.ready, r.status, r.details!.fts_stale], [true, 'degraded', true]);
  assert.equal(r.reason, `Hermes marked the search index of ${db} stale; session_search scans the messages table instead, as Hermes does, until Hermes repairs it`);
  installStateDb(home, (w) => w.exec('DROP TABLE messages_fts'));
  r = await probe(home);
  assert.deepEqual([r.status, r.details!.fts_layout], ['degraded', null]);
  assert.equal(r.reason, `${db} has no search index (messages_fts); session_search scans the messages table instead until Hermes adds it`);
});

test('a newer schema without a column read: not ready, STATE_DB_SCHEMA_TOO_NEW, the action naming the column', async () => {
  const home = temp.make('ssr-');
  const future = NEWEST_KNOWN_SCHEMA_VERSION + 1;
  installStateDb(home, (w) => {
    w.prepare('UPDATE schema_version SET version = ?').run(future);
    const dependents = w.prepare(`SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql LIKE '%compacted%'`).all() as Array<{ type: string; name: string }>;
    for (const d of dependents) w.exec(`DROP ${d.type.toUpperCase()} IF EXISTS "${d.name}"`);
    w.exec('ALTER TABLE messages DROP COLUMN compacted');
  });
  const r = await probe(home);
  assert.deepEqual([r.ready, r.status, r.details!.code], [false, 'error', 'STATE_DB_SCHEMA_TOO_NEW']);
  assert.equal(r.action, `this gateway knows Hermes' state.db up to schema ${NEWEST_KNOWN_SCHEMA_VERSION}, and this newer one no longer has messages.compacted: use a gateway release that knows it`);
});

test('an older schema asks for a Hermes run; a file that is no database asks to check it', async () => {
  const home = temp.make('ssr-');
  installStateDb(home, (w) => w.prepare('UPDATE schema_version SET version = ?').run(OLDEST_SUPPORTED_SCHEMA_VERSION - 1));
  let r = await probe(home);
  assert.deepEqual([r.ready, r.details!.code], [false, 'STATE_DB_SCHEMA_UNSUPPORTED']);
  assert.match(r.action!, /^run Hermes once in this HERMES_HOME so it migrates and reconciles state\.db/);
  const db = join(home, 'state.db');
  writeFileSync(db, 'not a database, only text long enough to have a header.\n'.repeat(20));
  r = await probe(home);
  assert.deepEqual([r.ready, r.status, r.details!.code], [false, 'error', 'STATE_DB_UNAVAILABLE']);
  assert.equal(r.action, `check that ${db} is Hermes' readable session database (Hermes itself can open it)`);
});
