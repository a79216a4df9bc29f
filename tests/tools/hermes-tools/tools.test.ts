import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HermesToolResult } from '../../../shared/worker-protocol/hermes-tools.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { isObject, resultValue, toolServerTool, type ToolServerCall } from '../../../supervisor/tools/hermes-tools/tools.js';

// The tool server's tools as catalog entries and Hermes' answers as results (tools.ts); the
// worker's own calls are the real-* tests'.

const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('no nested calls here')) };
const text = (t: string) => ({ type: 'text', text: t });
const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };

describe('resultValue', () => {
  test('structuredContent that is an object is the value; the text blocks mirror it and are dropped', () => {
    assert.deepEqual(resultValue({ content: [text('{"a":1}'), image], structuredContent: { a: 1 } }), { value: { a: 1 }, rest: [image] });
  });
  test("FastMCP's {result: '<json>'} wrapper is opened; plain text in it leaves the text block to carry it", () => {
    assert.deepEqual(resultValue({ content: [text('{"ok":true}')], structuredContent: { result: '{"ok":true}' } }), { value: { ok: true }, rest: [] });
    assert.deepEqual(resultValue({ content: [text('plain words')], structuredContent: { result: 'plain words' } }), { rest: [text('plain words')] });
    assert.deepEqual(resultValue({ content: [text('[1]')], structuredContent: { result: '[1]' } }), { rest: [text('[1]')] }, 'a JSON array is no value');
    // Another key next to result: not the wrapper; the object itself is the value.
    assert.deepEqual(resultValue({ content: [], structuredContent: { result: '{}', extra: 1 } }).value, { result: '{}', extra: 1 });
  });
  test('without structured content: the JSON object in the one text block; two text blocks or plain text are passed on', () => {
    assert.deepEqual(resultValue({ content: [text('{"success":true}'), image] }), { value: { success: true }, rest: [image] });
    assert.deepEqual(resultValue({ content: [text('not json')] }), { rest: [text('not json')] });
    assert.deepEqual(resultValue({ content: [text('{}'), text('{}')] }), { rest: [text('{}'), text('{}')] });
    assert.deepEqual(resultValue({ content: [text('"a string"')] }), { rest: [text('"a string"')] });
  });
});

test('isObject: plain objects only', () => {
  assert.deepEqual([{}, [], null, 'x', 1].map(isObject), [true, false, false, false, false]);
});

describe('toolServerTool', () => {
  const calls: Array<[string, Record<string, unknown>]> = [];
  let answer: HermesToolResult = { content: [text('{"results":[]}')] };
  const call: ToolServerCall = async (name, args) => {
    calls.push([name, args]);
    return answer;
  };
  const upstream = (name: string, inputSchema: Record<string, unknown>) => ({ name, description: `the ${name} tool`, inputSchema });

  test("the entry: name, description, the schema without $schema, the gateway's annotations; a handler calling the tool server", async () => {
    const tool = toolServerTool(upstream('web_search', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }), call);
    assert.ok(!('unusable' in tool));
    assert.equal(tool.name, 'web_search');
    assert.equal(tool.description, 'the web_search tool');
    assert.deepEqual(tool.inputSchema, { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] });
    assert.deepEqual(tool.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: true, idempotentHint: true, title: 'Search the web' });
    assert.equal(tool.returnsImages, undefined);
    assert.deepEqual(await tool.handler({ query: 'x' }, ctx), { structured: { results: [] } });
    assert.deepEqual(calls.at(-1), ['web_search', { query: 'x' }]);
    answer = { content: [text('plain failure')], isError: true };
    assert.deepEqual(await tool.handler({ query: 'y' }, ctx), { content: [text('plain failure')], isError: true });
    answer = { content: [text('{"a":1}'), image] };
    assert.deepEqual(await tool.handler({ query: 'z' }, ctx), { structured: { a: 1 }, content: [image] });
  });

  test('vision_analyze returns images; image_generate is not read-only; an unknown tool gets the open-world default', () => {
    const schema = { type: 'object', properties: {} };
    const vision = toolServerTool(upstream('vision_analyze', schema), call);
    assert.ok(!('unusable' in vision));
    assert.equal(vision.returnsImages, true);
    assert.equal(vision.annotations.idempotentHint, false);
    const image = toolServerTool(upstream('image_generate', schema), call);
    assert.ok(!('unusable' in image));
    assert.equal(image.annotations.readOnlyHint, false);
    const other = toolServerTool(upstream('something_new', schema), call);
    assert.ok(!('unusable' in other));
    assert.deepEqual(other.annotations, { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
  });

  test('a schema that is not an object schema, or does not compile, is unusable with the reason', () => {
    assert.deepEqual(toolServerTool(upstream('web_search', { type: 'array' }), call), { unusable: 'its input schema is not an object schema (type "array")' });
    const broken = toolServerTool(upstream('web_search', { type: 'object', properties: { q: { type: 'no-such-type' } } }), call);
    assert.ok('unusable' in broken);
    assert.match(broken.unusable, /^its input schema does not compile as JSON Schema 2020-12: /);
  });
});
