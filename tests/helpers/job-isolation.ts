import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { sep } from 'node:path';
import { loadConfig } from '../../supervisor/platform/config.js';

// Tests never touch a live job database: the paths a real gateway would use here, and the check
// every test-made job database passes first.

/** The job databases `npm start` would use here (embedded defaults, and this environment's): never touched by tests. */
export function liveJobDatabasePaths(): string[] {
  return [loadConfig({}).jobsDatabase, loadConfig(process.env).jobsDatabase];
}

/** Throws unless `path` is a throwaway job database (under the temp directory, not a live one). */
export function assertIsolatedJobDatabase(path: string): void {
  const tmp = realpathSync(tmpdir());
  if (liveJobDatabasePaths().includes(path) || !(path.startsWith(tmpdir() + sep) || path.startsWith(tmp + sep))) {
    throw new Error(`test isolation: refusing job database ${path}; tests use a temporary HERMES_HOME`);
  }
}
