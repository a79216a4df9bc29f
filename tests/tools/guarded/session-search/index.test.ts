import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import type { CallContext } from '../../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../../supervisor/platform/config.js';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import { createLogger } from '../../../../supervisor/platform/telemetry.js';
import { closeCpuPool } from '../../../../supervisor/platform/thread-pool/pool.js';
import { sessionSearchChanges, sessionSearchTools } from '../../../../supervisor/tools/guarded/session-search/index.js';
import { S_CLI, installStateDb } from '../../../fixtures/hermes-home.js';
import { tempDirs } from '../../../helpers/temp.js';

// The session_search tool built directly (no gateway) over a database the pinned Hermes wrote; its
// search runs on the CPU pool.

const temp = tempDirs();
after(async () => {
  await closeCpuPool();
  temp.removeAll();
});

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

function ctx(signal = new AbortController().signal): CallContext {
  return { owner: { id: `request:${randomUUID()}`, kind: 'request' }, signal, callId: randomUUID(), era: 'modern', callNested: () => Promise.reject(new Error('no nested calls')) };
}

function tool(home: string, version: string | undefined) {
  const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state') });
  const [t] = sessionSearchTools(config, quiet, new HermesRelease(version));
  return t!;
}

test('the changes a release has: none for 0.19.0, every session_search change for an unknown version', () => {
  assert.deepEqual(sessionSearchChanges(new HermesRelease('0.19.0')), []);
  const all = sessionSearchChanges(new HermesRelease(undefined));
  assert.ok(all.length >= 12, all.join(', '));
  assert.ok(all.every((c) => c.startsWith('session_search_')));
  assert.ok(all.includes('session_search_links'));
});

test('the tool: read-only, no owner needed, its schema following the release', () => {
  const home = temp.make('ssi-');
  const oldest = tool(home, '0.19.0');
  assert.equal(oldest.name, 'session_search');
  assert.equal(oldest.requiresOwner, false);
  assert.equal(oldest.annotations?.readOnlyHint, true);
  const props = (t: typeof oldest) => Object.keys((t.inputSchema as unknown as { properties: object }).properties);
  assert.equal(props(oldest).includes('detail'), false);
  assert.equal(props(tool(home, undefined)).includes('detail'), true);
});

test('a call answers with the payload; links name the profile of a profiles/<name> home', async () => {
  const root = temp.make('ssi-');
  const home = join(root, 'profiles', 'work');
  mkdirSync(home, { recursive: true });
  installStateDb(home);
  const out = await tool(home, undefined).handler({ session_id: S_CLI }, ctx());
  assert.equal(out.structured!.mode, 'read');
  assert.equal(out.structured!.link, `@session:work/${S_CLI}`);
  const plain = temp.make('ssi-');
  installStateDb(plain);
  assert.equal((await tool(plain, undefined).handler({ session_id: S_CLI }, ctx())).structured!.link, `@session:default/${S_CLI}`);
});

test("a failure is a GatewayError with Hermes' success flag; a cancelled call is CANCELLED", async () => {
  const home = temp.make('ssi-');
  installStateDb(home);
  const t = tool(home, undefined);
  await assert.rejects(t.handler({ session_id: 'nope' }, ctx()), (e: { code?: string; message?: string; details?: Record<string, unknown> }) => {
    assert.equal(e.code, 'HERMES_SESSION_NOT_FOUND');
    assert.equal(e.message, 'session_id not found: nope');
    assert.deepEqual(e.details, { success: false, session_id: 'nope' });
    return true;
  });
  const empty = temp.make('ssi-');
  await assert.rejects(tool(empty, undefined).handler({}, ctx()), { code: 'STATE_DB_MISSING' });
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(t.handler({}, ctx(ac.signal)), { code: 'CANCELLED', message: 'session_search was cancelled; its read was stopped' });
});
