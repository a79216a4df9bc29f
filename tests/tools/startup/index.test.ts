import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startupAdapter } from '../../../supervisor/tools/startup/index.js';
import { ALL, ctx, fixtures } from './fixture.js';

const fixture = fixtures();

// The startup adapter (index.ts): startup_context among the gateway's own tools, and /readyz
// startup_files, both reading the same configuration.

test("one gateway tool, startup_context, and one readiness component, startup_files, over the adapter's configuration", async () => {
  const { config } = fixture(ALL);
  const adapter = startupAdapter(config);
  assert.equal(adapter.name, 'startup');
  assert.equal(adapter.source?.name, 'gateway');
  const tools = await adapter.source!.tools(() => false);
  assert.deepEqual(tools.map((t) => t.name), ['startup_context']);
  const answer = await tools[0]!.handler({}, ctx);
  assert.ok(Array.isArray(answer.structured?.files));
  assert.deepEqual(adapter.readiness?.map((r) => r.name), ['startup_files']);
  const probe = await adapter.readiness![0]!.probe();
  assert.equal(probe.ready, true);
  assert.ok(((probe.details as { files: string[] }).files).includes('.hermes.md'), JSON.stringify(probe.details));
});
