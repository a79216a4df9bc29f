import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after } from 'node:test';
import { openJobDatabase, type JobDatabase } from '../../supervisor/tools/jobs/store/index.js';
import { tempDirs } from './temp.js';
import { assertIsolatedJobDatabase } from './job-isolation.js';

/** The schema version olderJobDatabase writes: the one before the output tail's styled twin. */
export const OLDER_JOB_SCHEMA = 3;

/**
 * A job database as a gateway of schema 3 left it: the real database (openJobDatabase), without
 * the columns schema 4 added (the output tail's styled twin and its truncation flag), its version
 * set back. Upgrade tests migrate it forward; snapshots must copy it as it is. Only a throwaway
 * path under the temp directory is accepted (never a live database).
 */
export function olderJobDatabase(path: string): void {
  assertIsolatedJobDatabase(path);
  openJobDatabase(path).close();
  const db = new Database(path);
  for (const column of ['output_styled', 'output_truncated']) db.exec(`ALTER TABLE jobs DROP COLUMN ${column}`);
  db.pragma(`user_version = ${OLDER_JOB_SCHEMA}`);
  db.close();
}

/**
 * Fresh job databases for one test file: each call opens a new one (openJobDatabase) in a
 * directory of its own named `prefix`…; after the file's tests every one is closed and removed.
 */
export function jobDatabasesForFile(prefix: string): () => JobDatabase {
  const temp = tempDirs();
  const open: JobDatabase[] = [];
  after(() => {
    for (const db of open.splice(0)) db.close();
    temp.removeAll();
  });
  return () => {
    const db = openJobDatabase(join(temp.make(prefix), 'jobs.sqlite3'));
    open.push(db);
    return db;
  };
}
