import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJsonObject, parseJsonObject } from '../../supervisor/platform/json-object.js';

test('a JSON object is an object that is neither null nor an array', () => {
  assert.equal(isJsonObject({}), true);
  assert.equal(isJsonObject({ a: 1 }), true);
  for (const other of [null, [], [1], 'x', 1, true, undefined]) assert.equal(isJsonObject(other), false, JSON.stringify(other));
});

test('parseJsonObject: the object when the text is one, undefined for another value or text that does not parse', () => {
  assert.deepEqual(parseJsonObject('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] });
  assert.deepEqual(parseJsonObject(' {} '), {});
  for (const text of ['[]', 'null', '"{}"', '3', '', '{', '{"a":1,}']) assert.equal(parseJsonObject(text), undefined, text);
});
