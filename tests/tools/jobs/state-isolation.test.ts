import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { assertIsolatedJobDatabase, liveJobDatabasePaths, startTestGateway } from '../../helpers/gateway.js';

// The guard between the test suite and the live job database ($HERMES_HOME/gateway-jobs.sqlite3 of
// whoever runs the tests). Two layers: startTestGateway refuses any database that is not a
// throwaway under the temp directory, and this file fails if a test starts a gateway, the gateway
// bin or a job database any other way without giving it its own HERMES_HOME / path.

test('the live default database is refused by the test guard', () => {
  assert.ok(liveJobDatabasePaths().includes(join(homedir(), '.hermes', 'gateway-jobs.sqlite3')));
  for (const live of liveJobDatabasePaths()) assert.throws(() => assertIsolatedJobDatabase(live), /test isolation/);
  assert.throws(() => assertIsolatedJobDatabase('/var/lib/hermes/gateway-jobs.sqlite3'), /test isolation/);
  assert.doesNotThrow(() => assertIsolatedJobDatabase(join(tmpdir(), 'hmcp-x', 'gateway-jobs.sqlite3')));
});

test('a test gateway resolves its job database inside its own temporary home and stops its maintenance loop on close', async () => {
  const gw = await startTestGateway();
  try {
    assert.equal(gw.gateway.config.jobsDatabase, join(gw.home, 'gateway-jobs.sqlite3'));
  } finally {
    await gw.close();
  }
  // A closed runner's interval is cleared: nothing keeps the event loop alive or touches the file.
  assert.equal((gw.jobs.runner as unknown as { timer?: { _destroyed?: boolean } }).timer?._destroyed, true);
});

test('no test starts a gateway, the gateway bin or a job database without its own home or path', () => {
  const root = join(packageRoot(), 'tests');
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(root, f));
  const offenders: string[] = [];
  for (const file of files) {
    const rel = relative(root, file);
    if (rel === join('tools', 'jobs', 'state-isolation.test.ts') || rel === join('helpers', 'gateway.ts')) continue;
    const text = readFileSync(file, 'utf8');
    const startsGateway = /\bstartGateway\(|\bjobsAdapter\(|spawn\([^)]*main\.js/.test(text) || /launchGateway\(/.test(text);
    const opensDatabase = /\bopenJobDatabase\(/.test(text);
    // A gateway needs an explicit throwaway HERMES_HOME (or job database path) in the same file.
    if (startsGateway && !/HERMES_HOME: (?!'')|HERMES_MCP_JOBS_DATABASE: (?!'')|launchGateway\(home/.test(text)) offenders.push(`${rel}: starts a gateway without its own HERMES_HOME`);
    // A database opened directly must live in a mkdtemp directory of that test (directly or through
    // tests/helpers/temp.ts), or be refused by the isolation guard when it does not.
    if (opensDatabase && !/mkdtempSync\(|tempDirs\(\)|assertIsolatedJobDatabase\(/.test(text) && !/cfg\.db|args\.db|options\.db/.test(text)) offenders.push(`${rel}: opens a job database outside a temp directory`);
  }
  assert.deepEqual(offenders, []);
});
