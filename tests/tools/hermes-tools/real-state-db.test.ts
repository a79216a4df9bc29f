import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, viaBridge } from '../../helpers/gateway.js';
import { startRealTools, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// Hermes' real tool server creates $HERMES_HOME/state.db for its own async_delegations table
// (tools/async_delegation.py) before any agent session has run there. session_search and
// /readyz.session_db read that as "no session history yet" (STATE_DB_MISSING, ready), not as a
// foreign or broken session database.

const temp = tempDirs();
let real: RealTools;
let client: Client;

before(async () => {
  real = await startRealTools(temp.make('hmcp-real-statedb-'));
  client = await connect(real.gw.mcpUrl, 'modern');
});

after(async () => {
  await client?.close();
  await real?.close();
  temp.removeAll();
});

test("the tool server's state.db (async_delegations only) is no session history yet, not an error", async () => {
  const path = join(real.home, 'state.db');
  await waitFor(() => existsSync(path), 30_000, 'the tool server creating state.db');
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name);
  db.close();
  assert.deepEqual(tables, ['async_delegations'], "what Hermes 0.19.0's tool server writes");

  const r = await viaBridge(client, 'session_search', { query: 'anything' });
  assert.equal(r.isError, true);
  assert.equal(r.data.error, 'STATE_DB_MISSING', JSON.stringify(r.data));
  assert.match(String(r.data.message), /no Hermes sessions in .*state\.db yet: it holds none of the session tables \(only async_delegations/);

  const readyz = (await (await fetch(`${real.gw.url}/readyz`)).json()) as { components: Record<string, { ready: boolean; status: string; reason?: string }> };
  const c = readyz.components.session_db!;
  assert.deepEqual([c.ready, c.status], [true, 'missing'], JSON.stringify(c));
  assert.match(c.reason ?? '', /^STATE_DB_MISSING: /);
});
