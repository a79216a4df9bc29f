import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallContext, ToolOutcome } from '../../../../supervisor/core/tool-types.js';
import { rpcReplyFor, scriptToolDispatch } from '../../../../supervisor/tools/execute-code/rpc/script-tools.js';

test("a tool's outcome as a script's reply: the value, or Hermes' error shape with the stable code", () => {
  assert.deepEqual(rpcReplyFor({ structured: { content: 'x', total_lines: 1 } }), { content: 'x', total_lines: 1 });
  assert.deepEqual(rpcReplyFor({ isError: true, structured: { error: 'FILE_NOT_FOUND', message: 'no such file', similar_files: ['a'] } }), { similar_files: ['a'], error: 'no such file', code: 'FILE_NOT_FOUND' });
  assert.deepEqual(rpcReplyFor({ isError: true, structured: { error: 'INTERNAL' } }), { error: 'INTERNAL' });
  assert.deepEqual(rpcReplyFor({ isError: true }), { error: 'the tool failed' });
  assert.deepEqual(rpcReplyFor({}), {});
});

function caller(outcome: ToolOutcome): { ctx: CallContext; calls: string[] } {
  const calls: string[] = [];
  const ctx = { callNested: async (name: string) => (calls.push(name), outcome) } as unknown as CallContext;
  return { ctx, calls };
}

test('file tools go through the dispatcher as nested calls; a tool not granted never does', async () => {
  const dispatch = scriptToolDispatch(['read_file']);
  const { ctx, calls } = caller({ structured: { content: 'hi' } });
  assert.deepEqual(await dispatch('read_file', { path: 'a' }, ctx), { content: 'hi' });
  assert.deepEqual(await dispatch('patch', {}, ctx), { error: "Tool 'patch' is not available in execute_code." });
  assert.deepEqual(calls, ['read_file']);
});

test("web tools: Hermes' JSON object, its text when it is not one, and a clear error when its tool server does not serve them", async () => {
  const dispatch = scriptToolDispatch([]);
  assert.deepEqual(await dispatch('web_search', {}, caller({ structured: { results: [] } }).ctx), { results: [] });
  assert.equal(await dispatch('web_extract', {}, caller({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }).ctx), 'a\nb');
  const missing = (await dispatch('web_search', {}, caller({ isError: true, structured: { error: 'UNKNOWN_TOOL', message: 'no' } }).ctx)) as { error: string };
  assert.match(missing.error, /^web provider not configured/);
});
