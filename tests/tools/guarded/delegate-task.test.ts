import assert from 'node:assert/strict';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ERAS, call, connect, makeHermesHome, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// delegate_task is catalogued with its guarded schema and refused on every call before any model
// inference, pointing at prepared background jobs; the call leaves no trace anywhere.

/**
 * Every path under `dir` with its size and mtime: a cheap "nothing changed" fingerprint (the
 * gateway's own job database, which its maintenance loop may touch, is left out).
 */
function snapshot(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((rel) => !rel.startsWith('gateway-jobs.sqlite3'))
    .sort()
    .map((rel) => {
      const s = statSync(join(dir, rel));
      return `${rel}:${s.isDirectory() ? 'd' : s.size}:${s.mtimeMs}`;
    });
}

describe('delegate_task', () => {
  let gw: TestGateway;
  let home: string;
  before(async () => {
    home = makeHermesHome();
    gw = await startTestGateway({ home });
  });
  after(async () => {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  });

  test('is catalogued: tool_search finds it and tool_describe shows its guarded schema', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const search = await call(client, 'tool_search', { queries: ['delegate subagent task'] });
    assert.ok((search.data.results as Array<{ matches: string[] }>)[0]!.matches.includes('delegate_task'));
    const r = await call(client, 'tool_describe', { names: ['delegate_task'] });
    const d = (r.data.tools as Record<string, { description: string; parameters: Record<string, unknown>; source: string }>).delegate_task!;
    assert.equal(d.source, 'guarded');
    // Hermes' upstream field set (tools/delegate_tool.py), plus the handler-forwarded max_iterations.
    assert.deepEqual(Object.keys(d.parameters.properties as object), ['goal', 'context', 'tasks', 'role', 'background', 'acp_command', 'acp_args', 'max_iterations']);
    assert.equal(d.parameters.additionalProperties, false);
    const tasks = (d.parameters.properties as Record<string, { items: { properties: object; required: string[]; additionalProperties: boolean } }>).tasks!;
    assert.deepEqual(Object.keys(tasks.items.properties), ['goal', 'context', 'acp_command', 'acp_args', 'role']);
    assert.equal(tasks.items.additionalProperties, false);
    assert.deepEqual(tasks.items.required, ['goal']);
    assert.match(d.description, /DELEGATION_REQUIRES_JOB/);
    assert.match(d.description, /job_prepare/);
    const listed = await client.listTools();
    assert.ok(!listed.tools.some((t) => t.name === 'delegate_task'), 'deferred, not public');
    await client.close();
  });

  for (const era of ERAS) {
    test(`${era}: every call is refused with DELEGATION_REQUIRES_JOB pointing at job_prepare/job_start, and nothing happens`, async () => {
      const client = await connect(gw.mcpUrl, era);
      const before = snapshot(home);
      const calls: Array<Record<string, unknown>> = [
        {},
        { goal: 'Refactor the walrus module and run the tests' },
        { goal: 'Investigate', context: 'Paths: /srv/app; error: ENOSPC', role: 'orchestrator' },
        { tasks: [{ goal: 'a' }, { goal: 'b', context: 'c', role: 'leaf' }] },
      ];
      for (const args of calls) {
        const t0 = performance.now();
        const r = await viaBridge(client, 'delegate_task', args);
        assert.ok(performance.now() - t0 < 5_000, 'refused immediately, no inference');
        assert.equal(r.isError, true);
        assert.equal(r.data.error, 'DELEGATION_REQUIRES_JOB', JSON.stringify(r.data));
        assert.match(r.data.message as string, /job_prepare/);
        assert.match(r.data.message as string, /job_start/);
        assert.match(r.data.message as string, /before any model inference/);
        assert.equal(r.data.model_inference, false);
        assert.deepEqual(r.data.use_instead, ['session_open', 'job_prepare', 'job_start', 'job_status']);
      }
      assert.deepEqual(snapshot(home), before, 'no file in HERMES_HOME was created or touched');
      await client.close();
    });
  }

  test("Hermes' own fields (ACP transport, background, max_iterations) are accepted and refused with DELEGATION_REQUIRES_JOB; nothing is run", async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    const before = snapshot(home);
    const hermesShaped: Array<Record<string, unknown>> = [
      { goal: 'x', acp_command: 'copilot' },
      { goal: 'x', acp_args: ['--acp', '--stdio'] },
      { goal: 'x', background: true },
      { goal: 'x', background: false },
      { goal: 'x', max_iterations: 5 },
      { tasks: [{ goal: 'a', acp_command: 'x' }] },
      { tasks: [{ goal: 'a', context: 'c', acp_command: 'copilot', acp_args: ['--acp', '--stdio'], role: 'leaf' }] },
      // Everything at once, the way Hermes' own schema lets a model send it.
      {
        goal: 'Refactor the walrus module',
        context: 'repo at /srv/app',
        role: 'orchestrator',
        background: true,
        acp_command: 'copilot',
        acp_args: ['--acp', '--stdio'],
        max_iterations: 50,
        tasks: [{ goal: 'a', context: 'b', acp_command: 'claude', acp_args: [], role: 'orchestrator' }],
      },
      { tasks: Array.from({ length: 20 }, (_, i) => ({ goal: `task ${i}` })) },
    ];
    for (const args of hermesShaped) {
      const r = await viaBridge(client, 'delegate_task', args);
      assert.equal(r.isError, true);
      assert.equal(r.data.error, 'DELEGATION_REQUIRES_JOB', JSON.stringify(args));
      assert.match(r.data.message as string, /job_prepare/);
      assert.match(r.data.message as string, /job_start/);
    }
    assert.deepEqual(snapshot(home), before, 'nothing in HERMES_HOME was created or touched (no ACP subprocess, no job)');
    await client.close();
  });

  test('fields Hermes does not know, and wrongly typed Hermes fields, are still INVALID_ARGUMENTS', async () => {
    const client = await connect(gw.mcpUrl, 'modern');
    for (const args of [
      { goal: 'x', bogus: 1 },
      { goal: 'x', toolsets: ['terminal'] },
      { tasks: [{ goal: 'a', bogus: true }] },
      { tasks: [{ context: 'no goal' }] },
      { goal: 'x', background: 'yes' },
      { goal: 'x', max_iterations: 2.5 },
      // A bare '--acp' is Hermes' dispatch's one-element list (supervisor/core/hermes-args.ts); a number item is not repaired.
      { goal: 'x', acp_args: [7] },
      { goal: 'x', role: 'boss' },
    ]) {
      const r = await viaBridge(client, 'delegate_task', args);
      assert.equal(r.data.error, 'INVALID_ARGUMENTS', JSON.stringify(args));
    }
    await client.close();
  });
});
