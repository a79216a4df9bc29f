import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureHermesVenv } from '../../../scripts/hermes-venv.js';
import { packageRoot } from '../../../shared/package-root.js';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import type { SessionSpec } from '../../fixtures/hermes-home.js';
import { connect, makeHermesHome, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { DRIVERS, hermes, hermesEnv, runDriver, runDriverSync } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';

// The search-index layouts Hermes 0.22 leaves in the wild, independent of the schema version
// (hermes_state_schema.py: FTS storage "decoupled versioning"): a database hermes-agent 0.19.0 wrote
// and Hermes 0.22's SessionDB then opened is schema 31 with 0.19.0's one-column index; the same
// database after Hermes' own optimize_fts_storage() has the projection layout of a fresh 0.22
// database. On each, the gateway (following Hermes 0.22) finds what Hermes 0.22's own
// session_search finds: the same sessions, messages, roles and snippets. Every database is written
// by Hermes itself (tests/hermes/drivers/session_db.py, first with the oldest pin's venv, then the
// newest's); the newest pass runs this file, as only it has Hermes 0.22 (the oldest pass skips it).

const NEWER = new HermesRelease(hermes().version).has('session_search_or_relaxed');
const temp = tempDirs();

/** Sessions with what the layouts index differently: tool output past 8,192 characters, tool names, tool calls, CJK, cron. */
const SESSIONS: SessionSpec[] = [
  {
    id: '20260801_080000_tools1',
    messages: [
      { role: 'user', content: 'capture the heron page and dump the logs' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'browser_snapshot', arguments: '{"url": "heron.example"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', tool_name: 'browser_snapshot', content: 'page captured' },
      { role: 'tool', tool_name: 'terminal', content: `${'heron log filler line '.repeat(420)}tailmarker_zebra` },
      { role: 'assistant', content: 'The heron logs are long; the zebra marker is at the end.' },
    ],
  },
  { id: '20260802_080000_cjk001', messages: [{ role: 'user', content: '我们讨论了数据库迁移计划，然后部署到生产环境。' }, { role: 'assistant', content: '好的，先备份再迁移。' }] },
  { id: '20260803_080000_cron01', source: 'cron', messages: [{ role: 'assistant', content: 'nightly heron report: all logs rotated' }] },
  { id: '20260804_080000_plain1', title: 'Otter plan', messages: [{ role: 'user', content: 'Plan the otter backup window' }, { role: 'assistant', content: 'The otter backup runs nightly.' }] },
];
/** Written by Hermes 0.22 onto the upgraded database. */
const LATER: SessionSpec[] = [{ id: '20260805_080000_later1', messages: [{ role: 'user', content: 'a later heron question about the otter' }] }];

const QUERIES: Array<Record<string, unknown>> = [
  { query: 'heron', limit: 5 },
  { query: 'tailmarker_zebra', role_filter: 'tool' },
  { query: 'browser_snapshot', role_filter: 'tool' },
  { query: 'browser_snapshot', role_filter: 'user,assistant,tool', limit: 5 },
  { query: 'heron', role_filter: 'tool', sort: 'oldest' },
  { query: '迁移' },
  { query: '数据库迁移' },
  { query: 'otter zeppelin' },
  { query: 'tter' },
  { query: 'Otter plan' },
  {},
  { session_id: '20260801_080000_tools1' },
];

/** What must be the same: which sessions and messages, with which roles and snippets; a read's or browse's rows. */
function essentials(answer: Record<string, unknown>): unknown {
  if (answer.success !== true) return { error: answer.error ?? answer.message };
  if (answer.mode === 'read') return (answer.messages as Array<{ id: number }>).map((m) => m.id);
  const results = (answer.results as Array<Record<string, unknown>>) ?? [];
  if (answer.mode === 'browse') return results.map((r) => [r.session_id, r.title, r.preview]);
  return results.map((r) => [r.session_id, r.match_message_id, r.matched_role, r.snippet, r.detail, (r.messages as Array<{ id: number }>).map((m) => m.id)]);
}

/** session_db.py run by `python` (one pin's Hermes) in `home`. */
function writeWith(python: string, home: string, input: unknown): { schema_version: number; optimized?: boolean } {
  const r = spawnSync(python, [resolve(DRIVERS, 'session_db.py')], { input: JSON.stringify(input) + '\n', env: hermesEnv(home, { HOME: home }), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`session_db.py exited ${r.status}: ${r.stderr.slice(-3000)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { schema_version: number; optimized?: boolean };
}

function layoutOf(db: string): { version: number; fts: string } {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const version = (d.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v;
    const sql = (d.prepare(`SELECT sql FROM sqlite_master WHERE name = 'messages_fts'`).get() as { sql: string }).sql;
    return { version, fts: /content\s*=\s*'?messages_fts_src/i.test(sql) ? 'projection' : /content\s*=/i.test(sql) ? 'external' : 'inline' };
  } finally {
    d.close();
  }
}

describe('session_search on the index layouts Hermes 0.22 leaves (written by 0.19.0, upgraded, optimized)', { skip: NEWER ? false : 'needs Hermes 0.22 to upgrade and optimize the database: the newest pass runs it' }, () => {
  const homes: Record<'upgraded' | 'optimized', string> = { upgraded: '', optimized: '' };
  const gateways: TestGateway[] = [];
  before(() => {
    const oldest = ensureHermesVenv(packageRoot(), undefined, 'oldest');
    const written = temp.make('hmcp-ss-layout-');
    // hermes-agent 0.19.0 writes the sessions (schema 22, one-column index) ...
    assert.equal(writeWith(oldest.python, written, { sessions: SESSIONS }).schema_version, 22);
    // ... and Hermes 0.22's SessionDB opens it and writes on (schema 31, the index left as it was).
    runDriverSync('session_db.py', { sessions: LATER }, hermesEnv(written, { HOME: written }));
    for (const name of ['upgraded', 'optimized'] as const) {
      homes[name] = makeHermesHome();
      copyFileSync(join(written, 'state.db'), join(homes[name], 'state.db'));
    }
    // Hermes' own storage optimization moves the copy onto the projection layout.
    const optimized = temp.make('hmcp-ss-layout-opt-');
    mkdirSync(optimized, { recursive: true });
    copyFileSync(join(written, 'state.db'), join(optimized, 'state.db'));
    assert.equal(runDriverSync<{ optimized: boolean }>('session_db.py', { optimize_fts: true }, hermesEnv(optimized, { HOME: optimized })).optimized, true);
    copyFileSync(join(optimized, 'state.db'), join(homes.optimized, 'state.db'));
    assert.deepEqual(layoutOf(join(homes.upgraded, 'state.db')), { version: 31, fts: 'inline' });
    assert.deepEqual(layoutOf(join(homes.optimized, 'state.db')), { version: 31, fts: 'projection' });
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    for (const home of Object.values(homes)) if (home) rmSync(home, { recursive: true, force: true });
    temp.removeAll();
  });

  for (const name of ['upgraded', 'optimized'] as const) {
    test(`${name}: the gateway finds what Hermes 0.22's own session_search finds`, async () => {
      const gw = await startTestGateway({ home: homes[name], env: { HERMES_MCP_HERMES_VERSION: hermes().version } });
      gateways.push(gw);
      // Hermes' SessionDB may write on open: it reads a copy of its own.
      const hermesHome = temp.make(`hmcp-ss-layout-h-${name}-`);
      copyFileSync(join(homes[name], 'state.db'), join(hermesHome, 'state.db'));
      const theirs = await runDriver<Array<{ id: string; result?: Record<string, unknown>; raised?: string }>>(
        join(packageRoot(), 'tests', 'fidelity', 'drivers', 'session_search.py'),
        { cases: QUERIES.map((args, i) => ({ id: String(i), args })) },
        hermesEnv(hermesHome, { HOME: hermesHome }),
        120_000,
      );
      const client = await connect(gw.mcpUrl, 'modern');
      for (const [i, args] of QUERIES.entries()) {
        const hermesAnswer = theirs.find((a) => a.id === String(i));
        assert.ok(hermesAnswer?.result, `Hermes answered ${JSON.stringify(args)}: ${hermesAnswer?.raised}`);
        const ours = await viaBridge(client, 'session_search', args);
        assert.deepEqual(essentials(ours.data), essentials(hermesAnswer.result), `${name} ${JSON.stringify(args)}`);
        const found = essentials(ours.data);
        assert.ok(Array.isArray(found) && found.length > 0, `${name} ${JSON.stringify(args)} finds something: ${JSON.stringify(found)}`);
      }
      const readyz = (await (await fetch(`${gw.url}/readyz`)).json()) as { components: Record<string, { status: string; details: Record<string, unknown> }> };
      assert.deepEqual([readyz.components.session_db!.status, readyz.components.session_db!.details.schema_version, readyz.components.session_db!.details.fts_layout], ['ok', 31, name === 'upgraded' ? 'inline' : 'projection']);
      await client.close();
    });
  }
});
