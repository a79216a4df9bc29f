import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Hono } from 'hono';
import { openAuthDatabase } from '../../../supervisor/http/auth/auth-db.js';
import { mcpGate } from '../../../supervisor/http/auth/middleware.js';
import { PublicOrigin } from '../../../supervisor/platform/settings/public-origin.js';
import { issueStaticToken, StaticTokenVerifier } from '../../../supervisor/http/auth/static-tokens.js';
import { AuditLog } from '../../../supervisor/http/edge/audit.js';
import { tempDirs } from '../../helpers/temp.js';

// With authentication on, a 2025-era session id is served only to the credential that opened it,
// and an id the gate holds no owner for (never seen, its binding forgotten, or its session ended)
// is answered 404 before the MCP layer sees it. The MCP layer is a stand-in here that opens a
// session on `initialize`, ends it on DELETE and counts what reaches it.

const dirs = tempDirs();
after(() => dirs.removeAll());

function gateway(maxSessionBindings: number) {
  const dir = dirs.make('hmcp-binding-');
  const db = openAuthDatabase(join(dir, 'auth.sqlite3'));
  const alice = issueStaticToken(db, 'alice', undefined, { rotate: false }).token;
  const bob = issueStaticToken(db, 'bob', undefined, { rotate: false }).token;
  const audit = new AuditLog(join(dir, 'audit.jsonl'), 1 << 20);
  const gate = mcpGate({ origins: new PublicOrigin([]), staticTokens: new StaticTokenVerifier(db), audit, mcpPerMinute: 1000, now: Date.now, maxSessionBindings });
  const served: string[] = [];
  let next = 0;
  const app = new Hono();
  app.all('/mcp', (c) =>
    gate(c, async () => {
      const id = c.req.header('mcp-session-id');
      served.push(`${c.req.method} ${id ?? 'new'}`);
      if (id === undefined) return new Response('{}', { headers: { 'mcp-session-id': `s${++next}` } });
      return new Response('{}');
    }),
  );
  const send = (token: string, session?: string, method = 'POST') =>
    app.request('/mcp', { method, headers: { authorization: `Bearer ${token}`, ...(session ? { 'mcp-session-id': session } : {}) } });
  return { alice, bob, served, send, close: () => (audit.close(), db.close()) };
}

test('an unbound session id is 404 for every credential and never reaches the MCP layer', async () => {
  const g = gateway(10);
  assert.equal((await g.send(g.alice, 'never-issued')).status, 404);
  assert.equal((await g.send(g.bob)).headers.get('mcp-session-id'), 's1');
  assert.equal((await g.send(g.bob, 's1')).status, 200);
  assert.equal((await g.send(g.alice, 's1')).status, 404, 'foreign');
  assert.deepEqual(g.served, ['POST new', 'POST s1']);
  g.close();
});

test('a session whose binding was forgotten (past the cap) is refused, not served to anyone', async () => {
  const g = gateway(1);
  await g.send(g.alice);
  await g.send(g.alice);
  assert.equal((await g.send(g.bob, 's1')).status, 404);
  assert.equal((await g.send(g.alice, 's2')).status, 200);
  assert.deepEqual(g.served, ['POST new', 'POST new', 'POST s2']);
  g.close();
});

test('a session ended with DELETE forgets its owner: its id is 404 afterwards without reaching the MCP layer', async () => {
  const g = gateway(10);
  await g.send(g.alice);
  assert.equal((await g.send(g.alice, 's1', 'DELETE')).status, 200);
  assert.equal((await g.send(g.alice, 's1')).status, 404);
  assert.deepEqual(g.served, ['POST new', 'DELETE s1']);
  g.close();
});
