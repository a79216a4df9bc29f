import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CONTENT_JSON_PREFIX,
  cutCodePoints,
  DISCOVER_TIERS,
  discoverResult,
  fit,
  fitTranscript,
  formatWhen,
  isCompactionSummary,
  plainContent,
  sessionMeta,
  Shaper,
} from '../../../../supervisor/tools/guarded/session-search/shaper.js';
import type { MessageRow } from '../../../../supervisor/tools/guarded/session-search/store.js';

// formatWhen renders local time, as Hermes does: pin the zone for exact values.
process.env.TZ = 'UTC';

const OPENAI_KEY = 'sk-' + 'proj-' + 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f';

function row(id: number, content: unknown, extra: Partial<MessageRow> = {}): MessageRow {
  return { id, session_id: 's', role: 'user', content, tool_call_id: null, tool_calls: null, tool_name: null, timestamp: 1_782_864_000, ...extra };
}

describe('formatWhen', () => {
  test("Hermes' `%B %d, %Y at %I:%M %p`", () => {
    assert.equal(formatWhen(1_782_864_000), 'July 01, 2026 at 12:00 AM');
    assert.equal(formatWhen(1_782_864_000 + 13 * 3600 + 5 * 60), 'July 01, 2026 at 01:05 PM');
    assert.equal(formatWhen(1_782_864_000 + 12 * 3600), 'July 01, 2026 at 12:00 PM');
    assert.equal(formatWhen('1782864000.5'), 'July 01, 2026 at 12:00 AM');
  });

  test('none is unknown; what is not a number comes back as text', () => {
    assert.equal(formatWhen(null), 'unknown');
    assert.equal(formatWhen(undefined), 'unknown');
    assert.equal(formatWhen('yesterday'), 'yesterday');
    assert.equal(formatWhen('1-2-3'), '1-2-3');
    assert.equal(formatWhen(1e20), '100000000000000000000');
  });
});

describe('plainContent', () => {
  test('plain text is returned as stored', () => {
    assert.equal(plainContent('hello'), 'hello');
  });

  test('multimodal JSON: the text parts joined, or a placeholder', () => {
    const parts = [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: '' }, { type: 'text', text: 'here ' }];
    assert.equal(plainContent(CONTENT_JSON_PREFIX + JSON.stringify(parts)), 'look here');
    assert.equal(plainContent(CONTENT_JSON_PREFIX + JSON.stringify([{ type: 'image_url' }])), '[multimodal content]');
  });

  test('a JSON string or object, and undecodable JSON', () => {
    assert.equal(plainContent(`${CONTENT_JSON_PREFIX}"just text"`), 'just text');
    assert.equal(plainContent(`${CONTENT_JSON_PREFIX}{"a":1}`), '{"a":1}');
    assert.equal(plainContent(`${CONTENT_JSON_PREFIX}{broken`), `${CONTENT_JSON_PREFIX}{broken`);
  });
});

test('cutCodePoints counts code points, not UTF-16 units', () => {
  assert.deepEqual(cutCodePoints('abc', 5), { text: 'abc', cut: false, chars: 3 });
  assert.deepEqual(cutCodePoints('abcdef', 4), { text: 'abcd', cut: true, chars: 6 });
  // Three emoji are six UTF-16 units but three code points.
  assert.deepEqual(cutCodePoints('😀😀😀', 3), { text: '😀😀😀', cut: false, chars: 3 });
  assert.deepEqual(cutCodePoints('😀😀😀', 2), { text: '😀😀', cut: true, chars: 3 });
  assert.deepEqual(cutCodePoints('abc', Infinity), { text: 'abc', cut: false, chars: 3 });
});

test('isCompactionSummary: the two handoff prefixes, after leading whitespace', () => {
  assert.equal(isCompactionSummary('  [CONTEXT COMPACTION] earlier turns'), true);
  assert.equal(isCompactionSummary('[CONTEXT SUMMARY]: x'), true);
  assert.equal(isCompactionSummary(Buffer.from('[CONTEXT SUMMARY]: x')), true);
  assert.equal(isCompactionSummary('a [CONTEXT SUMMARY]: x'), false);
  assert.equal(isCompactionSummary(null), false);
  assert.equal(isCompactionSummary(''), false);
});

describe('Shaper.message', () => {
  test('content is redacted before it is cut, and the cut is flagged with the original length', () => {
    const shaper = new Shaper();
    const text = `key ${OPENAI_KEY} end`;
    assert.deepEqual(shaper.message(row(1, text), 100), { id: 1, role: 'user', content: 'key sk-pro...Cd4f end', timestamp: 1_782_864_000 });
    assert.deepEqual(shaper.message(row(1, text), 8), {
      id: 1,
      role: 'user',
      content: 'key sk-p…',
      timestamp: 1_782_864_000,
      content_truncated: true,
      original_content_chars: 21,
    });
  });

  test('ANSI escapes are stripped; a null content stays null', () => {
    const shaper = new Shaper();
    assert.equal(shaper.message(row(2, '\x1b[31mred\x1b[0m'), 100).content, 'red');
    assert.equal(shaper.message(row(3, null, { role: 'assistant' }), 100).content, null);
  });

  test('tool calls are parsed, redacted and cut to the cap as text when too long', () => {
    const shaper = new Shaper();
    const calls = [{ id: 'c1', function: { name: 'terminal', arguments: '{"command":"ls"}' } }];
    const m = row(4, null, { role: 'assistant', tool_calls: JSON.stringify(calls), tool_name: 'terminal', tool_call_id: 'c1' });
    assert.deepEqual(shaper.message(m, 1000, 4), { id: 4, role: 'assistant', content: null, timestamp: 1_782_864_000, tool_name: 'terminal', tool_calls: calls, tool_call_id: 'c1', anchor: true });
    const short = shaper.message(m, 10);
    assert.equal(short.tool_calls, `${JSON.stringify(calls).slice(0, 10)}…`);
    assert.equal(short.tool_calls_truncated, true);
  });

  test('undecodable or empty tool calls are left out', () => {
    const shaper = new Shaper();
    assert.equal('tool_calls' in shaper.message(row(5, 'x', { tool_calls: '{not json' }), 100), false);
    assert.equal('tool_calls' in shaper.message(row(6, 'x', { tool_calls: '[]' }), 100), false);
  });

  test('a tighter contentCap cuts the content alone', () => {
    const shaper = new Shaper();
    const calls = [{ name: 'abcdefghij' }];
    const out = shaper.message(row(7, 'abcdefghij', { tool_calls: JSON.stringify(calls) }), 100, undefined, 3);
    assert.equal(out.content, 'abc…');
    assert.deepEqual(out.tool_calls, calls);
  });

  test('a snippet loses the JSON prefix and is redacted as a window of its message', () => {
    const shaper = new Shaper();
    assert.equal(shaper.snippet(null, 'x'), '');
    assert.equal(shaper.snippet(`${CONTENT_JSON_PREFIX}>>>hit<<<`, 'hit'), '>>>hit<<<');
    assert.ok(!shaper.snippet(`>>>key<<< ${OPENAI_KEY}`, `key ${OPENAI_KEY}`).includes('Ab3dEf6hIj9l'));
  });
});

describe('fit and fitTranscript', () => {
  test('the first tier that fits wins; a narrower one says its limit', () => {
    const build = (n: number) => ({ text: 'x'.repeat(n) });
    assert.deepEqual(fit([5, 3, 1], build, 100, (n) => n), { text: 'xxxxx' });
    assert.deepEqual(fit([50, 20, 3], build, 60, (n) => n), { text: 'x'.repeat(20), content_limit_chars: 20 });
    // Nothing fits: the narrowest is returned anyway.
    assert.deepEqual(fit([50, 20], build, 5, (n) => n), { text: 'x'.repeat(20), content_limit_chars: 20 });
  });

  test('fitTranscript caps each message at the widest tier that fits the budget', () => {
    const long = 'y'.repeat(3000);
    const whole = fitTranscript(100_000, (shaper, cap) => ({ messages: [shaper.message(row(1, long), cap)] }));
    assert.equal((whole.messages as Array<{ content: string }>)[0]!.content, long);
    assert.equal('content_limit_chars' in whole, false);
    const cut = fitTranscript(1500, (shaper, cap) => ({ messages: [shaper.message(row(1, long), cap)] }));
    assert.equal(cut.content_limit_chars, 1000);
    assert.equal((cut.messages as Array<{ content: string }>)[0]!.content, `${'y'.repeat(1000)}…`);
  });

  test("fitTranscript's limit names the tighter of the tier and the followed Hermes' own cap", () => {
    // The content is always held to 2000 by the Hermes cap; the tool calls (5000+ characters) are
    // held to the tier only, and fit at the 4000 tier: the limit said is the content's 2000.
    const calls = JSON.stringify([{ a: 'q'.repeat(5000) }]);
    const m = row(1, 'z'.repeat(9000), { tool_calls: calls });
    const out = fitTranscript(6500, (shaper, cap) => ({ m: shaper.message(m, cap, undefined, Math.min(cap, 2000)) }), 2000);
    assert.equal(out.content_limit_chars, 2000);
    const shaped = out.m as { content: string; tool_calls: string };
    assert.equal(shaped.content, `${'z'.repeat(2000)}…`);
    assert.equal(shaped.tool_calls.length, 4001);
  });
});

test('sessionMeta renders when, source, model and title', () => {
  assert.deepEqual(sessionMeta({ id: 'a', source: 'cli', model: 'm', title: null, started_at: 1_782_864_000, parent_session_id: null, end_reason: null }), {
    when: 'July 01, 2026 at 12:00 AM',
    source: 'cli',
    model: 'm',
    title: null,
  });
});

test('discoverResult: bookends filtered and capped tighter than the window, the lineage root named when another', () => {
  const shaper = new Shaper();
  const tier = DISCOVER_TIERS[5]!; // window 100, bookend 50
  const first = row(1, 'b'.repeat(80));
  const compaction = row(2, '[CONTEXT SUMMARY]: x');
  const hit = row(3, 'w'.repeat(80));
  const out = discoverResult(shaper, tier, { session_id: 'child' }, {
    view: { window: [hit], bookend_start: [first, compaction], bookend_end: [], messages_before: 2, messages_after: 0 },
    anchor: 3,
    root: 'root',
    keepBookend: (m) => !isCompactionSummary(m.content),
  });
  assert.deepEqual(Object.keys(out), ['session_id', 'bookend_start', 'messages', 'bookend_end', 'messages_before', 'messages_after', 'parent_session_id']);
  assert.deepEqual(
    (out.bookend_start as Array<{ id: number; content: string }>).map((m) => [m.id, m.content]),
    [[1, `${'b'.repeat(50)}…`]],
  );
  assert.equal((out.messages as Array<{ content: string; anchor?: boolean }>)[0]!.content, 'w'.repeat(80));
  assert.equal((out.messages as Array<{ anchor?: boolean }>)[0]!.anchor, true);
  assert.equal(out.parent_session_id, 'root');
  const own = discoverResult(shaper, tier, { session_id: 'root' }, {
    view: { window: [], bookend_start: [], bookend_end: [], messages_before: 0, messages_after: 0 },
    anchor: undefined,
    root: 'root',
    keepBookend: () => true,
  });
  assert.equal('parent_session_id' in own, false);
});
