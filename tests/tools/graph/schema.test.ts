import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinDefinition, publicDefinition, PUBLIC_TOOL_NAME } from '../../../supervisor/tools/graph/schema.js';

// inspect_code_graph's public schema (schema.ts): the upstream's with cwd first, or the stand-in.

const NOTE = 'Gateway routing: pass the absolute project root in cwd (under an allowed project root).';

test("the upstream's schema: $schema dropped, cwd first in properties and required, the routing note before its description", () => {
  assert.equal(PUBLIC_TOOL_NAME, 'inspect_code_graph');
  const d = publicDefinition({ name: 'graph', description: 'Ask the graph.', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { question: { type: 'string' } }, required: ['question', 7], additionalProperties: false } });
  assert.ok(!('unusable' in d));
  assert.equal(d.description, `${NOTE}\n\nAsk the graph.`);
  assert.deepEqual(Object.keys(d.inputSchema.properties as object), ['cwd', 'question']);
  assert.deepEqual(d.inputSchema.required, ['cwd', 'question']);
  assert.equal(d.inputSchema.additionalProperties, false);
  assert.equal('$schema' in d.inputSchema, false);
});

test('no type, no properties, no description: still an object schema with cwd alone, the note alone', () => {
  const d = publicDefinition({ name: 'graph', description: '', inputSchema: {} });
  assert.ok(!('unusable' in d));
  assert.equal(d.description, NOTE);
  assert.deepEqual([d.inputSchema.type, Object.keys(d.inputSchema.properties as object), d.inputSchema.required], ['object', ['cwd'], ['cwd']]);
});

test('unusable: not an object schema, or a cwd of its own', () => {
  assert.deepEqual(publicDefinition({ name: 'g', description: '', inputSchema: { type: 'array' } }), { unusable: `the upstream's input schema is not an object schema (type "array")` });
  assert.deepEqual(publicDefinition({ name: 'g', description: '', inputSchema: { type: 'object', properties: { cwd: { type: 'string' } } } }), {
    unusable: 'the upstream tool has a cwd argument of its own, which the gateway routing argument would shadow',
  });
});

test("the built-in stand-in: cwd required, Samchon Graph's request shape, the note first", () => {
  const d = builtinDefinition();
  assert.ok(d.description.startsWith(NOTE));
  assert.deepEqual(d.inputSchema.required, ['cwd']);
  assert.deepEqual(Object.keys(d.inputSchema.properties as object), ['cwd', 'question', 'draft', 'review', 'request']);
});
