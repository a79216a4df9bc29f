import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHistory } from '../../../../supervisor/tools/agent-tasks/task/history.js';

// The conversation an async task carries into POST /v1/runs: user and assistant text only, trimmed,
// the newest `max` messages, and how many older ones were left out.

test('user and assistant text in order; tool results, system messages and empty turns left out', () => {
  const { history, omitted } = runHistory(
    [
      { role: 'system', content: 'you are helpful' },
      { role: 'user', content: '  first question \n' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1' }] },
      { role: 'tool', content: 'tool output', tool_call_id: 'c1' },
      { role: 'assistant', content: 'answer with a call', tool_calls: [{ id: 'c2' }] },
      { role: 'user', content: '   ' },
      { content: 'no role at all' },
      { role: 'assistant', content: 42 },
    ],
    10,
  );
  assert.deepEqual(history, [
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'answer with a call' },
  ]);
  assert.equal(omitted, 0);
});

test('multi-part content keeps its text parts joined by newlines; other parts and malformed ones are dropped', () => {
  const { history } = runHistory(
    [
      {
        role: 'user',
        content: [{ type: 'text', text: 'look at' }, { type: 'image_url', image_url: { url: 'data:' } }, null, 'bare string', { type: 'text', text: 7 }, { type: 'text', text: '' }, { type: 'text', text: 'this picture ' }],
      },
      { role: 'assistant', content: [{ type: 'image_url' }] },
    ],
    10,
  );
  assert.deepEqual(history, [{ role: 'user', content: 'look at\nthis picture' }]);
});

test('only the newest `max` messages, the count of older ones reported; no cut back to a user turn', () => {
  const messages = ['u1', 'a1', 'u2', 'a2', 'u3'].map((c) => ({ role: c.startsWith('u') ? 'user' : 'assistant', content: c }));
  assert.deepEqual(runHistory(messages, 2), { history: [{ role: 'assistant', content: 'a2' }, { role: 'user', content: 'u3' }], omitted: 3 });
  assert.deepEqual(runHistory(messages, 5).omitted, 0);
  assert.deepEqual(runHistory(messages, 0), { history: [], omitted: 5 });
  // Skipped messages do not count as omitted: only carried text does.
  assert.deepEqual(runHistory([{ role: 'tool', content: 'x' }, ...messages.slice(3)], 1), { history: [{ role: 'user', content: 'u3' }], omitted: 1 });
  // A compressed session starting with an assistant summary keeps it first.
  assert.deepEqual(runHistory([{ role: 'assistant', content: 'summary' }, { role: 'user', content: 'next' }], 2).history[0], { role: 'assistant', content: 'summary' });
});
