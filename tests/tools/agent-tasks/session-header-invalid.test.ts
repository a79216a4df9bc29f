import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { makeBridgeFixture, type BridgeFixture } from '../../helpers/bridge.js';
import { connect, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// A chat completion's X-Hermes-Session-Id that is no id the bridge could send back (with "..", or
// failing the bridge's Hermes session id pattern) is not followed: the bridge session keeps the id
// it sent, and nothing is recorded under TASKS_DIR/.sessions. Stand-in (Hermes API): real Hermes
// cannot answer such an id (it names the session it accepted, or a compression continuation
// YYYYMMDD_HHMMSS_<hex6>). A valid other id, last, is followed, so the test can tell the two apart.

const ANSWERS: Record<string, string> = {
  dots: 'gb-sess-standin-s..x',
  'leading-dot': '.hidden',
  slash: 'a/b',
  'too-long': 'x'.repeat(257),
  valid: '20261202_181500_a1b2c3',
};

describe('an X-Hermes-Session-Id the bridge cannot send back', () => {
  const temp = tempDirs();
  let fx: BridgeFixture;
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    fx = await makeBridgeFixture(temp.make('hmcp-bad-session-header-'), {
      standin: { answerSessionId: (sent, input) => Object.entries(ANSWERS).find(([name]) => input.includes(`Task id: hdr-${name}\n`))?.[1] ?? sent },
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
  const sentHeaders = () => fx.standin.calls.filter((c) => c.path === '/v1/chat/completions').map((c) => c.sessionHeader);

  test('is ignored: the task completes in the session it was sent, nothing is recorded, the next task sends the same id', async () => {
    let base: string | undefined;
    for (const name of ['dots', 'leading-dot', 'slash', 'too-long']) {
      const r = await viaBridge(client, 'hermes_task', { task: `answer with session ${name}`, mode: 'sync', id: `hdr-${name}`, session: 's' });
      assert.equal(r.data.status, 'completed', JSON.stringify(r.data));
      base ??= sentHeaders()[0];
      assert.ok(base, 'the first task sent a session id');
      assert.equal(sentHeaders().at(-1), base, `${name}: sent in the bridge session's own Hermes session`);
      const details = JSON.parse(readFileSync(join(fx.tasksDir, `hdr-${name}`, 'result.json'), 'utf8')).details as Record<string, unknown>;
      assert.equal(details.session_id, base, name);
      assert.equal(details.session_rotated_from, undefined, name);
      assert.equal(existsSync(join(fx.tasksDir, '.sessions', `${base}.json`)), false, `${name}: nothing recorded`);
    }
  });

  test('a valid other id is followed, so the ignored ones were told apart', async () => {
    const base = sentHeaders()[0]!;
    await viaBridge(client, 'hermes_task', { task: 'rotate', mode: 'sync', id: 'hdr-valid', session: 's' });
    assert.equal(JSON.parse(readFileSync(join(fx.tasksDir, '.sessions', `${base}.json`), 'utf8')).hermes_session_id, ANSWERS.valid);
    await viaBridge(client, 'hermes_task', { task: 'after', mode: 'sync', id: 'hdr-after', session: 's' });
    assert.equal(sentHeaders().at(-1), ANSWERS.valid);
  });
});
