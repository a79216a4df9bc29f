import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coerceNumber, coerceValue, normalizeJsonStrings, schemaAllowsNull } from '../../supervisor/core/hermes-arg-values.js';

// Hermes' coercion of one argument value (model_tools.py `_coerce_number`, `_coerce_value`,
// `_schema_allows_null`, `_normalize_json_strings_for_schema`), value by value.

test('coerceNumber: what float() reads and is finite; a fraction stays a string for an integer', () => {
  for (const [text, n] of [['3', 3], [' 3 ', 3], ['3.0', 3], ['1e2', 100], ['1_0', 10], ['-0', 0], ['+.5e1', 5]] as const) assert.equal(coerceNumber(text, true), n, text);
  assert.ok(Object.is(coerceNumber('-0', true), 0), '-0 reads as 0');
  assert.equal(coerceNumber('2.5', false), 2.5);
  for (const text of ['2.5', 'abc', '', 'inf', 'nan', '1e999', '0x10', '1__0', '_1']) assert.equal(coerceNumber(text, true), text, text);
});

test('coerceValue: booleans, JSON containers, null where allowed, unions in order', () => {
  assert.equal(coerceValue(' TRUE ', 'boolean', undefined), true);
  assert.equal(coerceValue('False', 'boolean', undefined), false);
  assert.equal(coerceValue('yes', 'boolean', undefined), 'yes');
  assert.deepEqual(coerceValue('[1,"a"]', 'array', undefined), [1, 'a']);
  assert.equal(coerceValue('{"a":1}', 'array', undefined), '{"a":1}', 'an object for an array stays a string');
  assert.deepEqual(coerceValue('{"a":1}', 'object', undefined), { a: 1 });
  assert.equal(coerceValue('[1', 'array', undefined), '[1');
  assert.equal(coerceValue('NULL', 'integer', { type: ['integer', 'null'] }), null);
  assert.equal(coerceValue('null', 'integer', { type: 'integer' }), 'null');
  assert.equal(coerceValue('null', 'null', undefined), null);
  assert.equal(coerceValue('7', ['boolean', 'integer'], undefined), 7);
  assert.equal(coerceValue('true', ['integer', 'boolean'], undefined), true);
  assert.equal(coerceValue('x', ['integer', 'boolean'], undefined), 'x');
  assert.equal(coerceValue('3', 'string', undefined), '3');
});

test('schemaAllowsNull: a null type, a type list with null, nullable, or a null branch of anyOf/oneOf', () => {
  assert.equal(schemaAllowsNull(undefined), false);
  assert.equal(schemaAllowsNull({ type: 'null' }), true);
  assert.equal(schemaAllowsNull({ type: ['string', 'null'] }), true);
  assert.equal(schemaAllowsNull({ type: 'string', nullable: true }), true);
  assert.equal(schemaAllowsNull({ anyOf: [{ type: 'string' }, { type: 'null' }] }), true);
  assert.equal(schemaAllowsNull({ oneOf: [{ type: 'null' }] }), true);
  assert.equal(schemaAllowsNull({ allOf: [{ type: 'null' }] }), false);
  assert.equal(schemaAllowsNull({ type: 'string' }), false);
});

test('normalizeJsonStrings: JSON-encoded containers inside containers where the schema expects them; the same value when nothing changes', () => {
  const schema = { type: 'array', items: { type: 'object', properties: { tags: { type: 'array' }, name: { type: 'string' } } } };
  const value = ['{"tags":"[\\"a\\"]","name":"[x]"}'];
  assert.deepEqual(normalizeJsonStrings(value, schema), [{ tags: ['a'], name: '[x]' }]);
  const untouched = [{ tags: ['a'], name: 'n' }];
  assert.equal(normalizeJsonStrings(untouched, schema), untouched);
  assert.equal(normalizeJsonStrings('[1]', { type: 'object' }), '[1]', 'an array where only an object fits');
  assert.deepEqual(normalizeJsonStrings(' [1] ', { anyOf: [{ type: 'array' }] }), [1]);
  assert.equal(normalizeJsonStrings('[1', { type: 'array' }), '[1');
  assert.equal(normalizeJsonStrings('x', 'not a schema'), 'x');
});
