import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import { ACTION_ALIASES, appliesFor, cronjobDescription, cronjobInputSchema } from '../../../../supervisor/tools/guarded/cronjob/schema.js';

// What the cronjob tool says of itself for 0.19.0 and for the newest Hermes the gateway knows.

const V019 = new HermesRelease('0.19.0');
const NEWEST = new HermesRelease(undefined);

test('appliesFor: the arguments each action takes; later Hermes adds failure_deliver, continuity, pinned, paused and a run prompt', () => {
  const old = appliesFor(V019);
  assert.deepEqual(old.list, ['include_disabled']);
  assert.deepEqual(old.create, ['prompt', 'schedule', 'name', 'repeat', 'deliver', 'skills', 'context_from', 'workdir']);
  assert.deepEqual(old.update, ['job_id', ...old.create]);
  assert.deepEqual([old.pause, old.resume, old.remove, old.run], [['job_id', 'reason'], ['job_id'], ['job_id'], ['job_id']]);
  const now = appliesFor(NEWEST);
  assert.deepEqual(now.create, ['prompt', 'schedule', 'name', 'repeat', 'deliver', 'skills', 'context_from', 'workdir', 'failure_deliver', 'continuity', 'pinned', 'paused', 'paused_reason']);
  assert.deepEqual(now.update, ['job_id', 'prompt', 'schedule', 'name', 'repeat', 'deliver', 'skills', 'context_from', 'workdir', 'failure_deliver', 'continuity', 'pinned']);
  assert.deepEqual(now.run, ['job_id', 'prompt']);
  assert.deepEqual(ACTION_ALIASES, { run_now: 'run', trigger: 'run' });
});

test('the input schema: every action and alias, later fields only for later Hermes, nothing else accepted', () => {
  const old = cronjobInputSchema(V019) as unknown as { properties: Record<string, { enum?: string[] }>; required: string[]; additionalProperties: boolean };
  assert.deepEqual(old.properties.action!.enum, ['list', 'create', 'update', 'pause', 'resume', 'remove', 'run', 'run_now', 'trigger']);
  assert.deepEqual([old.required, old.additionalProperties], [['action'], false]);
  for (const later of ['failure_deliver', 'continuity', 'paused', 'paused_reason', 'pinned']) assert.equal(later in old.properties, false, later);
  const now = cronjobInputSchema(NEWEST) as unknown as { properties: Record<string, unknown> };
  for (const later of ['failure_deliver', 'continuity', 'paused', 'paused_reason', 'pinned']) assert.equal(later in now.properties, true, later);
  // Every argument an action takes is in the schema.
  for (const args of Object.values(appliesFor(NEWEST))) for (const a of args) assert.ok(a in now.properties, a);
});

test('the description says the host state and the schedule forms and fields of the detected Hermes', () => {
  const old = cronjobDescription(V019, 'DISABLED on this host');
  assert.match(old, /Mutations are currently DISABLED on this host\./);
  assert.match(old, /'30m' \/ '2h' \/ '1d' \(one-shot after that delay\)/);
  assert.doesNotMatch(old, /failure_deliver|pinned/);
  const now = cronjobDescription(NEWEST, 'enabled');
  assert.match(now, /'30m' \/ 'every 2h' \/ 'every hour' \(recurring interval\)/);
  assert.match(now, /failure_deliver: where failure notices go/);
  assert.match(now, /pinned: set only when the user asks/);
  assert.match(now, /with an optional prompt added for that one run/);
});
