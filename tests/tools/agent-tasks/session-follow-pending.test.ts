import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { makeBridgeFixture, type BridgeFixture } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// When hermes_status settles an async run but cannot learn where Hermes continued its session
// (the session API fails), the result says so (session_follow_pending) and the next hermes_status
// asks again; an async task, which reads the session's messages to send them along, is refused. Stand-in (Hermes API): real Hermes cannot be made to answer 503
// session_db_unavailable on demand; session-rotation-async.test.ts follows a real rotation.

const TIP = '20261202_182000_c0ffee';

describe('an async run whose session cannot be followed at once', () => {
  const temp = tempDirs();
  let fx: BridgeFixture;
  let gw: TestGateway;
  let client: Client;
  // 'new': Hermes knows no session yet (404, as for a bridge session's first task); 'down': the
  // session database fails; 'up': the session ended by compression and continues in TIP.
  let sessionDb: 'new' | 'down' | 'up' = 'new';
  before(async () => {
    fx = await makeBridgeFixture(temp.make('hmcp-follow-pending-'), {
      standin: {
        sessionApi: (id, messages) =>
          sessionDb === 'new'
            ? { status: 404, body: { error: { message: `Session not found: ${id}`, type: 'invalid_request_error', code: 'session_not_found' } } }
            : sessionDb === 'down'
              ? { status: 503, body: { error: { message: 'Session database unavailable', code: 'session_db_unavailable' } } }
              : messages
                ? { status: 200, body: { object: 'list', session_id: TIP, data: [] } }
                : { status: 200, body: { object: 'hermes.session', session: { id, end_reason: 'compression' } } },
      },
    });
    gw = await startTestGateway({ env: fx.env });
    client = await connect(gw.mcpUrl, 'modern');
  });
  after(async () => {
    await client?.close();
    await gw?.close();
    await fx?.close();
    temp.removeAll();
  });

  test('the result is written, marked session_follow_pending; a later hermes_status follows and records the move', async () => {
    const accepted = await viaBridge(client, 'hermes_task', { task: 'work', mode: 'async', id: 'pend-1', session: 'p' });
    const runId = accepted.data.run_id as string;
    sessionDb = 'down';
    const base = JSON.parse(readFileSync(join(fx.tasksDir, 'pend-1', 'run.json'), 'utf8')).session_id as string;
    const first = await waitFor(async () => {
      const s = await viaBridge(client, 'hermes_status', { run_id: runId });
      return s.data.terminal === true ? s.data : undefined;
    }, 10_000, 'the run to settle');
    assert.equal(first.status, 'completed');
    assert.equal(first.session_id, base);
    const pending = JSON.parse(readFileSync(join(fx.tasksDir, 'pend-1', 'result.json'), 'utf8')).details as Record<string, unknown>;
    assert.equal(pending.session_follow_pending, true);
    assert.match(String(pending.session_follow_error), /503/);
    assert.equal(existsSync(join(fx.tasksDir, '.sessions', `${base}.json`)), false);

    sessionDb = 'up';
    const second = await viaBridge(client, 'hermes_status', { run_id: runId });
    assert.equal(second.data.result_updated, true);
    assert.equal(second.data.session_id, TIP);
    assert.equal(second.data.session_rotated_from, base);
    const details = JSON.parse(readFileSync(join(fx.tasksDir, 'pend-1', 'result.json'), 'utf8')).details as Record<string, unknown>;
    assert.equal(details.session_follow_pending, undefined);
    assert.equal(details.session_id, TIP);
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${base}.json`), 'utf8')).hermes_session_id, TIP);

    const third = await viaBridge(client, 'hermes_status', { run_id: runId });
    assert.equal(third.data.result_updated, false);
    assert.equal(third.data.session_id, TIP);
    const next = await viaBridge(client, 'hermes_task', { task: 'next', mode: 'async', id: 'pend-2', session: 'p' });
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, 'pend-2', 'run.json'), 'utf8')).session_id, TIP, JSON.stringify(next.data));
  });

  test('an async task whose session history cannot be read is refused before any run is sent (UPSTREAM_FAILED)', async () => {
    sessionDb = 'down';
    const runs = fx.standin.runs.size;
    const r = await viaBridge(client, 'hermes_task', { task: 'more', mode: 'async', id: 'pend-3', session: 'p' });
    assert.equal(r.data.error, 'UPSTREAM_FAILED', JSON.stringify(r.data));
    assert.match(String(r.data.message), /session messages failed with HTTP 503/);
    assert.equal(fx.standin.runs.size, runs);
    assert.equal(existsSync(join(fx.tasksDir, 'pend-3', 'run.json')), false);
  });
});
