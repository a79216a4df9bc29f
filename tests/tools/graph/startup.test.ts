import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { GraphToolDefinition } from '../../../shared/worker-protocol/graph.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { builtinDefinition } from '../../../supervisor/tools/graph/schema.js';
import { resolveStartup, schemaRootOf } from '../../../supervisor/tools/graph/startup.js';
import type { GraphWorker } from '../../../supervisor/tools/graph/worker.js';
import { tempDirs } from '../../helpers/temp.js';

// What the graph adapter learns at startup (startup.ts), with a stand-in worker answering the
// schema request: the upstream's schema, or the built-in one and each fallback's code.

const temp = tempDirs();
after(() => temp.removeAll());

type SchemaReply = { type: 'schema-result'; id: string; tool?: GraphToolDefinition; failure?: { code: 'GRAPH_TIMEOUT'; message: string } };

function world(reply: SchemaReply, roots?: string) {
  const root = temp.make('hmcp-graph-startup-');
  const bin = temp.make('hmcp-graph-bin-');
  writeFileSync(join(bin, 'graph-upstream'), '#!/bin/sh\n');
  chmodSync(join(bin, 'graph-upstream'), 0o755);
  const config = loadConfig({ HERMES_HOME: temp.make('hmcp-graph-home-'), HERMES_MCP_ROOTS: roots ?? root, HERMES_MCP_GRAPH_COMMAND: 'graph-upstream --stdio' });
  const asked: unknown[] = [];
  const worker = {
    async request(body: unknown, boundMs: number) {
      asked.push([body, boundMs]);
      return reply;
    },
  } as unknown as GraphWorker;
  return { root, bin, config, worker, asked };
}

test('schemaRootOf: the first allowed root that exists', async () => {
  const a = temp.make('hmcp-graph-a-');
  assert.equal(await schemaRootOf([join(a, 'absent'), a]), a);
  assert.equal(await schemaRootOf([join(a, 'absent')]), undefined);
});

test("the upstream answered: its public definition, asked in the schema root within the startup budget", async () => {
  const w = world({ type: 'schema-result', id: '1', tool: { name: 'graph', description: 'd', inputSchema: { type: 'object', properties: { question: { type: 'string' } } } } });
  const s = await resolveStartup(w.config, w.worker, w.bin);
  assert.equal(s.kind, 'upstream');
  assert.equal(s.schemaRoot, w.root);
  assert.deepEqual(s.definition.inputSchema.required, ['cwd']);
  const [body, bound] = w.asked[0] as [unknown, number];
  assert.deepEqual(body, { type: 'schema', cwd: w.root });
  assert.ok(bound > w.config.limits.graphStartupTimeoutSeconds * 1000);
});

test('every fallback keeps the built-in schema, with its code and reason', async () => {
  const tool = (inputSchema: Record<string, unknown>): SchemaReply => ({ type: 'schema-result', id: '1', tool: { name: 'graph', description: '', inputSchema } });
  const cases: Array<[ReturnType<typeof world>, string, string, RegExp]> = [];
  const noRoot = world(tool({}), '/nonexistent-hmcp-root');
  cases.push([noRoot, noRoot.bin, 'GRAPH_NO_ROOT', /no allowed project root exists/]);
  const noProgram = world(tool({}));
  cases.push([noProgram, '/nonexistent-bin', 'GRAPH_NOT_INSTALLED', /"graph-upstream" was not found on PATH/]);
  const failed = world({ type: 'schema-result', id: '1', failure: { code: 'GRAPH_TIMEOUT', message: 'slow start' } });
  cases.push([failed, failed.bin, 'GRAPH_TIMEOUT', /^slow start$/]);
  const silent = world({ type: 'schema-result', id: '1' });
  cases.push([silent, silent.bin, 'GRAPH_UPSTREAM_FAILED', /without the tool definition/]);
  const shadow = world(tool({ properties: { cwd: {} } }));
  cases.push([shadow, shadow.bin, 'GRAPH_SCHEMA_UNUSABLE', /cwd argument of its own/]);
  const broken = world(tool({ type: 'object', properties: { q: { type: 'no-such-type' } } }));
  cases.push([broken, broken.bin, 'GRAPH_SCHEMA_UNUSABLE', /does not compile as JSON Schema 2020-12/]);
  for (const [w, path, code, reason] of cases) {
    const s = await resolveStartup(w.config, w.worker, path);
    assert.equal(s.kind, 'fallback', code);
    if (s.kind !== 'fallback') continue;
    assert.equal(s.code, code);
    assert.match(s.reason, reason);
    assert.deepEqual(s.definition, builtinDefinition());
    assert.equal(s.schemaRoot, code === 'GRAPH_NO_ROOT' ? undefined : w.root);
  }
  assert.equal(noRoot.asked.length + noProgram.asked.length, 0, 'no worker asked without a root or a program');
});
