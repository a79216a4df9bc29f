import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../supervisor/config.js';
import { sessionDbReadiness } from '../../supervisor/guarded/session-search.js';
import { SessionStore, StoreError } from '../../supervisor/guarded/session-search/store.js';
import { hermesEnv, makeHermesHome, runDriver } from '../helpers/hermes.js';
import { tempDirs } from '../helpers/temp.js';

// Real Hermes 0.19.0 writes state.db before any session: loading its tools (its tool server's
// start does, through tools/process_registry.py) creates the file with only tools/async_delegation.py's
// table. A home where only the tool server has run has no session history, which is not a broken
// database: /readyz session_db is ready with status missing, and session_search says STATE_DB_MISSING.

const temp = tempDirs();
after(() => temp.removeAll());

test("a state.db holding only Hermes' async_delegations table (its tools loaded, no session run) is 'missing', not an unsupported schema", async () => {
  const home = makeHermesHome(join(temp.make('hmcp-tools-only-'), 'home'), { config: { model: { context_length: 128000 }, security: { tirith_enabled: false } } });
  const loaded = await runDriver<{ tools: string[]; state_db_tables: string[] | null }>('load_tools.py', {}, hermesEnv(home));
  assert.ok(loaded.tools.length > 0, 'Hermes loaded its tools');
  assert.deepEqual(loaded.state_db_tables, ['async_delegations'], 'what this Hermes writes into state.db when its tools load');

  const result = await sessionDbReadiness(loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home })).probe();
  assert.equal(result.ready, true, JSON.stringify(result));
  assert.equal(result.status, 'missing');
  assert.match(result.reason ?? '', /^STATE_DB_MISSING: .*holds no Hermes sessions yet: it has only async_delegations/);
  assert.throws(() => SessionStore.open(join(home, 'state.db')), (e: unknown) => e instanceof StoreError && e.code === 'STATE_DB_MISSING');
});
