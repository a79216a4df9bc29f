import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { TaskInput } from '../../../../supervisor/tools/guarded/session-search/args.js';
import sessionSearchTask from '../../../../supervisor/tools/guarded/session-search/task.js';
import { S_API, S_CLI, installStateDb, standardStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// The session_search worker entry, called directly over a database the pinned Hermes wrote.

const temp = tempDirs();
after(() => temp.removeAll());

function input(dbPath: string, args: TaskInput['args']): TaskInput {
  return { dbPath, args, budgetChars: 50_000, profile: 'default', changes: [] };
}

test('a read answers ok with the payload', () => {
  const home = temp.make('sst-');
  const db = installStateDb(home);
  const r = sessionSearchTask(input(db, { session_id: S_CLI }));
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.payload.mode, 'read');
  assert.equal(r.payload.message_count, 2);
  assert.deepEqual(
    (r.payload.messages as Array<{ id: number; content: string }>).map((m) => [m.id, m.content]),
    standardStateDb().messages[S_CLI]!.map((id, i) => [id, ['How do I rotate the walrus certificates?', 'Run the walrus rotation script, then restart nginx.'][i]]),
  );
});

test('browse leaves out subagent sessions', () => {
  const home = temp.make('sst-');
  const r = sessionSearchTask(input(installStateDb(home), {}));
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual((r.payload.results as Array<{ session_id: string }>).map((s) => s.session_id).sort(), [S_CLI, S_API].sort());
});

test('failures come back as codes, with details where the store gives them', () => {
  const home = temp.make('sst-');
  const db = installStateDb(home);
  assert.deepEqual(sessionSearchTask(input(db, { session_id: 'nope' })), {
    ok: false,
    code: 'HERMES_SESSION_NOT_FOUND',
    message: 'session_id not found: nope',
    details: { session_id: 'nope' },
  });
  const other = sessionSearchTask(input(db, { session_id: 'work/abc' }));
  assert.deepEqual([other.ok, !other.ok && other.code], [false, 'INVALID_ARGUMENTS']);
  const missing = sessionSearchTask(input(join(temp.make('sst-'), 'state.db'), {}));
  assert.deepEqual([missing.ok, !missing.ok && missing.code], [false, 'STATE_DB_MISSING']);
});
