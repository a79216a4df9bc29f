import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { openJobDatabase, SCHEMA_VERSION } from '../../../../supervisor/tools/jobs/store/index.js';
import { getJob, hashSecret, prepareJob } from '../../../../supervisor/tools/jobs/store/index.js';
import { tempDirs } from '../../../helpers/temp.js';

// PTY jobs added columns to the job database (schema 3). A database an older gateway left behind
// (schema 2) is migrated in place: its jobs read as plain ones and an idempotency key recorded then
// still matches the same plain request. A database newer than this gateway is refused, untouched.

const temp = tempDirs();
after(() => temp.removeAll());

const RULES = { maxPrepared: 10, ttlMs: 60_000 };

/** A schema-2 database with one prepared plain job, as the gateway before PTY jobs wrote it. */
function schemaTwoDatabase(path: string): void {
  openJobDatabase(path).close();
  const db = new Database(path);
  // The columns of schema 3 (PTY jobs) and 4 (the tail's styled twin and truncation) did not exist yet.
  for (const column of ['pty', 'pty_cols', 'pty_rows', 'output_styled', 'output_truncated']) db.exec(`ALTER TABLE jobs DROP COLUMN ${column}`);
  // The request hash of that time: command, workdir, max_runtime, profile.
  const requestHash = hashSecret(JSON.stringify(['make test', '/w/old', 60, 'light']));
  db.prepare(
    `INSERT INTO jobs (id, token_hash, request_hash, idempotency_key, prepared_by, command, workdir, max_runtime, profile, state, created_at, expires_at, updated_at)
     VALUES ('job_000000000000000000000001', 'x', ?, 'old-key-0123456789', 'o', 'make test', '/w/old', 60, 'light', 'prepared', ?, ?, ?)`,
  ).run(requestHash, Date.now(), Date.now() + 60_000, Date.now());
  db.pragma('user_version = 2');
  db.close();
}

test('a schema-2 database is migrated: old jobs are plain, old idempotency keys still match', () => {
  const path = join(temp.make('hmcp-pty-schema-'), 'jobs.sqlite3');
  schemaTwoDatabase(path);
  const db = openJobDatabase(path);
  try {
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    const old = getJob(db, 'job_000000000000000000000001')!;
    assert.equal(old.pty, 0);
    assert.equal(old.pty_cols, null);
    assert.equal(old.output_styled, null, 'an old receipt has no colours');
    const request = { command: 'make test', workdir: '/w/old', maxRuntime: 60, profile: 'light', heavy: false, memoryReservation: 0, preparedBy: 'o', idempotencyKey: 'old-key-0123456789' };
    const again = prepareJob(db, request, RULES, Date.now());
    assert.equal(again.duplicate, true);
    assert.equal(again.job_id, old.id);
    // The same key for the same command on a terminal is a different request.
    assert.throws(() => prepareJob(db, { ...request, terminal: { cols: 80, rows: 24 } }, RULES, Date.now()), /JOB_IDEMPOTENCY_CONFLICT|different request/);
    const pty = prepareJob(db, { ...request, idempotencyKey: 'new-key-0123456789', terminal: { cols: 80, rows: 24 } }, RULES, Date.now());
    const row = getJob(db, pty.job_id)!;
    assert.deepEqual([row.pty, row.pty_cols, row.pty_rows], [1, 80, 24]);
  } finally {
    db.close();
  }
});

test('a database newer than this gateway is refused and left as it is', () => {
  const path = join(temp.make('hmcp-pty-schema-'), 'jobs.sqlite3');
  openJobDatabase(path).close();
  const raw = new Database(path);
  raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  raw.close();
  assert.throws(() => openJobDatabase(path), /newer than this gateway/);
  const check = new Database(path, { readonly: true });
  assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION + 1);
  check.close();
});
