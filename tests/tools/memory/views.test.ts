import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Conclusion } from '@honcho-ai/sdk';
import type { Prepared } from '../../../supervisor/tools/memory/honcho.js';
import { conclusionView, identityView, READ_ONLY } from '../../../supervisor/tools/memory/views.js';

// How a conclusion and the answering identity are shown to the caller.

const AT = '2026-01-02T03:04:05Z';

test('conclusionView: the kind prefix the gateway wrote is split off', () => {
  const c = new Conclusion('c1', '[decision] use SQLite for jobs', 'assistant', 'user', 's1', AT, 'explicit');
  assert.deepEqual(conclusionView(c), { id: 'c1', kind: 'decision', content: 'use SQLite for jobs', created_at: AT });
});

test('conclusionView: a conclusion the gateway did not write has kind null and its whole text', () => {
  const c = new Conclusion('c2', '[opinion] likes tea\nsecond line', 'assistant', 'user', null, AT);
  assert.deepEqual(conclusionView(c), { id: 'c2', kind: null, content: '[opinion] likes tea\nsecond line', created_at: AT });
});

test('conclusionView: a derived level is shown, explicit is not', () => {
  const c = new Conclusion('c3', '[preference] tabs\nover spaces', 'assistant', 'user', null, AT, 'deductive');
  assert.deepEqual(conclusionView(c), { id: 'c3', kind: 'preference', content: 'tabs\nover spaces', created_at: AT, level: 'deductive' });
});

test('identityView: workspace and both peers by id', () => {
  const prepared = { honcho: { workspaceId: 'ws' }, user: { id: 'alice' }, assistant: { id: 'hermes' } } as unknown as Prepared;
  assert.deepEqual(identityView(prepared), { workspace: 'ws', user_peer: 'alice', assistant_peer: 'hermes' });
});

test('READ_ONLY annotations say read-only, idempotent and closed-world', () => {
  assert.deepEqual({ ...READ_ONLY }, { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true });
});
