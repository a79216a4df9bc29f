import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceMatcher, similarity } from '../../../../supervisor/tools/files/common/sequence-matcher.js';

// The port of difflib.SequenceMatcher: the values below are what CPython computes for the same inputs.

test('getOpcodes: the difflib documentation example', () => {
  assert.deepEqual(new SequenceMatcher('qabxcd', 'abycdf').getOpcodes(), [
    ['delete', 0, 1, 0, 0],
    ['equal', 1, 3, 0, 2],
    ['replace', 3, 4, 2, 3],
    ['equal', 4, 6, 3, 5],
    ['insert', 6, 6, 5, 6],
  ]);
});

test('getMatchingBlocks ends with the (len a, len b, 0) sentinel', () => {
  assert.deepEqual(new SequenceMatcher('abxcd', 'abcd').getMatchingBlocks(), [
    [0, 0, 2],
    [3, 2, 2],
    [5, 4, 0],
  ]);
});

test('ratio, quickRatio and realQuickRatio', () => {
  const sm = new SequenceMatcher('abcd', 'bcde');
  assert.equal(sm.ratio(), 0.75);
  assert.equal(sm.quickRatio(), 0.75);
  assert.equal(sm.realQuickRatio(), 1);
  const swapped = new SequenceMatcher('ab', 'ba');
  assert.equal(swapped.ratio(), 0.5);
  assert.equal(swapped.quickRatio(), 1);
  assert.equal(new SequenceMatcher('', '').ratio(), 1);
  assert.equal(new SequenceMatcher('', '').quickRatio(), 1);
  assert.equal(new SequenceMatcher('abc', '').ratio(), 0);
});

test('autojunk: in a second sequence of 200+ items a popular item never starts a match', () => {
  const many = 'a'.repeat(250);
  // no match can start on a popular item; one that starts elsewhere still extends over them
  assert.equal(new SequenceMatcher('x' + many, 'y' + many).ratio(), 0);
  assert.equal(new SequenceMatcher(many, many).ratio(), 1);
  // under 200 items nothing is popular
  const fewer = 'a'.repeat(190);
  assert.equal(new SequenceMatcher('x' + fewer, 'y' + fewer).ratio(), 380 / 382);
});

test('similarity: 1 for equal strings, a cheap bound below atLeast, else the ratio', () => {
  const many = 'x' + 'a'.repeat(250);
  assert.equal(similarity(many, many), 1);
  assert.equal(similarity('abcd', 'bcde'), 0.75);
  assert.equal(similarity('ab', 'abcdef', 0.9), 0.5); // realQuickRatio 4/8
  assert.equal(similarity('ab', 'cd', 0.4), 0); // quickRatio: nothing in common
  assert.equal(similarity('ab', 'ba', 0.9), 0.5); // the bounds pass, the ratio decides
});
