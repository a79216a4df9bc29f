import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gte } from '@renovatebot/pep440';
import { viaBridge } from '../../helpers/gateway.js';
import { hermes } from '../../helpers/hermes.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { waitFor } from '../../helpers/wait.js';
import { realToolsSuite } from './fixture.js';

// Hermes 0.19.0's real tool server creates $HERMES_HOME/state.db for its own async_delegations
// table (tools/async_delegation.py) before any agent session has run there; 0.22.2's creates no
// state.db at all. Either way, session_search and /readyz.session_db read that as "no session
// history yet" (STATE_DB_MISSING, ready), not as a foreign or broken session database.


const suite = realToolsSuite('hmcp-real-statedb-');

/** Hermes 0.22.2 (the first version these tests run without it) no longer writes state.db when its tool server starts. */
const WRITES_STATE_DB = !gte(hermes().version, '0.22.2');

test(`the tool server's start (${WRITES_STATE_DB ? 'a state.db with async_delegations only' : 'no state.db'}) is no session history yet, not an error`, async () => {
  const path = join(suite.real.home, 'state.db');
  // The tool server has listed its tools (its start has run) before anything is looked at.
  await waitFor(async () => ((await toolServerReadiness(suite.real.gw.url)).hermesTools.details?.state === 'up' ? true : undefined), 60_000, 'the tool server up');
  if (WRITES_STATE_DB) {
    await waitFor(() => existsSync(path), 30_000, 'the tool server creating state.db');
    const db = new Database(path, { readonly: true, fileMustExist: true });
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name);
    db.close();
    assert.deepEqual(tables, ['async_delegations'], "what Hermes 0.19.0's tool server writes");
  } else {
    assert.equal(existsSync(path), false, `Hermes ${hermes().version}'s tool server writes no state.db`);
  }

  const r = await viaBridge(suite.client, 'session_search', { query: 'anything' });
  assert.equal(r.isError, true);
  assert.equal(r.data.error, 'STATE_DB_MISSING', JSON.stringify(r.data));
  assert.match(String(r.data.message), WRITES_STATE_DB ? /no Hermes sessions in .*state\.db yet: it holds none of the session tables \(only async_delegations/ : /no Hermes session database at .*state\.db/);

  const readyz = (await (await fetch(`${suite.real.gw.url}/readyz`)).json()) as { components: Record<string, { ready: boolean; status: string; reason?: string }> };
  const c = readyz.components.session_db!;
  assert.deepEqual([c.ready, c.status], [true, 'empty'], JSON.stringify(c));
  assert.match(c.reason ?? '', /^STATE_DB_MISSING: /);
});
