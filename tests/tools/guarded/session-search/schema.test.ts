import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionSearchChange } from '../../../../supervisor/tools/guarded/session-search/args.js';
import { sessionSearchDescription, sessionSearchInputSchema } from '../../../../supervisor/tools/guarded/session-search/schema.js';

const ALL: SessionSearchChange[] = [
  'session_search_adaptive_detail',
  'session_search_time_bounds',
  'session_search_exclude_ids',
  'session_search_kanban_hidden',
  'session_search_read_cap',
  'session_search_links',
];

function properties(changes: SessionSearchChange[]): Record<string, Record<string, unknown>> {
  return sessionSearchInputSchema(new Set(changes)).properties as Record<string, Record<string, unknown>>;
}

test('the oldest Hermes: the base parameters only, never `profile`, nothing else accepted', () => {
  const schema = sessionSearchInputSchema(new Set());
  assert.equal(schema.type, 'object');
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(Object.keys(properties([])), ['query', 'limit', 'sort', 'session_id', 'around_message_id', 'window', 'role_filter']);
  assert.deepEqual(properties([]).sort!.enum, ['newest', 'oldest']);
  assert.equal(properties([]).session_id!.maxLength, 512);
});

test('each later change adds its own parameters, in place after discover', () => {
  assert.deepEqual(Object.keys(properties(['session_search_adaptive_detail'])), ['query', 'limit', 'sort', 'detail', 'session_id', 'around_message_id', 'window', 'role_filter']);
  assert.deepEqual(Object.keys(properties(['session_search_time_bounds'])).slice(3, 5), ['after', 'before']);
  const all = properties(ALL);
  assert.deepEqual(Object.keys(all), ['query', 'limit', 'sort', 'detail', 'after', 'before', 'exclude_session_ids', 'session_id', 'around_message_id', 'window', 'role_filter']);
  assert.deepEqual(all.detail!.enum, ['adaptive', 'full']);
  assert.equal(all.after!.maxLength, 64);
  assert.equal(all.exclude_session_ids!.maxItems, 100);
  assert.deepEqual(all.exclude_session_ids!.items, { type: 'string', maxLength: 512 });
  assert.match(String(all.exclude_session_ids!.description), /The first 20 distinct ids count\.$/);
  assert.equal('profile' in all, false);
});

test('the description says only what the followed Hermes has', () => {
  const oldest = sessionSearchDescription(new Set());
  assert.match(oldest, /Subagent and tool sessions are not searched/);
  assert.match(oldest, /and messages_before\/messages_after\. /);
  assert.doesNotMatch(oldest, /adaptive|`after`|exclude_session_ids|each message at most 2000|`link`|kanban/);
  assert.match(oldest, /first 20 \+ last 10 messages when longer\.$/m);

  const newest = sessionSearchDescription(new Set(ALL));
  assert.match(newest, /with detail 'adaptive' \(the default\) only the top result has them/);
  assert.match(newest, /`after`\/`before` bound the session start/);
  assert.match(newest, /`exclude_session_ids` leaves out sessions already inspected/);
  assert.match(newest, /Subagent, kanban and tool sessions are not searched/);
  assert.match(newest, /when longer; each message at most 2000 characters\.$/m);
  assert.ok(newest.endsWith(' When referring the user to a session, write its `link` value verbatim inline.'));
  assert.equal(newest.split('\n').length, oldest.split('\n').length);
});
