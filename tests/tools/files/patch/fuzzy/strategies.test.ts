import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SIMILARITY_STRATEGIES,
  STRATEGIES,
  strategyBlockAnchor,
  strategyContextAware,
  strategyContextAwareStrict,
  strategyEscapeNormalized,
  strategyExact,
  strategyLineTrimmed,
  strategyTrimmedBoundary,
  strategyUnicodeNormalized,
  strategyWhitespaceNormalized,
} from '../../../../../supervisor/tools/files/patch/fuzzy/strategies.js';

const slice = (content: string, spans: Array<[number, number]>): string[] => spans.map(([s, e]) => content.slice(s, e));

describe('strategyExact', () => {
  test('finds every non-overlapping occurrence, left to right', () => {
    assert.deepEqual(strategyExact('abcabcab', 'abc'), [[0, 3], [3, 6]]);
    assert.deepEqual(strategyExact('aaaa', 'aa'), [[0, 2], [2, 4]]);
    assert.deepEqual(strategyExact('aaa', 'aa'), [[0, 2]]);
  });

  test('an empty pattern and an absent one match nothing', () => {
    assert.deepEqual(strategyExact('abc', ''), []);
    assert.deepEqual(strategyExact('abc', 'x'), []);
  });
});

describe('strategyLineTrimmed', () => {
  test('matches whole lines whose stripped text equals the pattern lines', () => {
    const content = 'head\n   one  \n\ttwo\ntail';
    const spans = strategyLineTrimmed(content, 'one\ntwo');
    assert.deepEqual(slice(content, spans), ['   one  \n\ttwo']);
  });

  test('a line that differs inside is no match', () => {
    assert.deepEqual(strategyLineTrimmed('a b\n', 'a  b'), []);
  });
});

describe('strategyWhitespaceNormalized', () => {
  test('maps a match on collapsed runs back onto the original text', () => {
    const content = 'x =   1 +\t\t2;\nz';
    const spans = strategyWhitespaceNormalized(content, 'x = 1 + 2');
    assert.deepEqual(spans, [[0, 12]]);
    assert.equal(content.slice(0, 12), 'x =   1 +\t\t2');
  });

  test('a match ending in a space swallows the rest of the original run', () => {
    const content = 'a   b';
    const spans = strategyWhitespaceNormalized(content, 'a ');
    assert.deepEqual(slice(content, spans), ['a   ']);
  });

  test('no match after collapsing is no match', () => {
    assert.deepEqual(strategyWhitespaceNormalized('ab', 'a b'), []);
  });
});

describe('strategyEscapeNormalized', () => {
  test('turns \\n \\t \\r literals into the characters, then searches exactly', () => {
    const content = 'a\n\tb\r\n';
    assert.deepEqual(strategyEscapeNormalized(content, 'a\\n\\tb\\r'), [[0, 5]]);
  });

  test('a pattern without escape literals is left to the other strategies', () => {
    assert.deepEqual(strategyEscapeNormalized('abc', 'abc'), []);
  });
});

describe('strategyTrimmedBoundary', () => {
  test('only the first and last lines are trimmed; the middle must be equal', () => {
    const content = 'x\n  first  \n  mid\n last \ny';
    assert.deepEqual(slice(content, strategyTrimmedBoundary(content, 'first\n  mid\nlast')), ['  first  \n  mid\n last ']);
    assert.deepEqual(strategyTrimmedBoundary(content, 'first\nmid\nlast'), []);
  });

  test('a one-line pattern is trimmed once', () => {
    const content = 'a\n   solo \nb';
    assert.deepEqual(slice(content, strategyTrimmedBoundary(content, ' solo')), ['   solo ']);
  });
});

describe('strategyUnicodeNormalized', () => {
  test('smart quotes in the file match ASCII in the pattern; the span is the original one', () => {
    const content = 'say \u201chi\u201d now';
    const spans = strategyUnicodeNormalized(content, 'say "hi"');
    assert.deepEqual(slice(content, spans), ['say \u201chi\u201d']);
  });

  test('an ellipsis in the file spans one original character for three normalised ones', () => {
    const content = 'wait\u2026 go';
    const spans = strategyUnicodeNormalized(content, 'wait... go');
    assert.deepEqual(spans, [[0, content.length]]);
  });

  test('nothing to normalise on either side is no match (exact already handled it)', () => {
    assert.deepEqual(strategyUnicodeNormalized('plain', 'plain'), []);
  });

  test('falls back to line-trimmed matching on the normalised text', () => {
    const content = '  \u2018a\u2019  \nb';
    const spans = strategyUnicodeNormalized(content, "'a'\nb");
    assert.deepEqual(slice(content, spans), [content]);
  });
});

describe('strategyBlockAnchor', () => {
  test('a unique anchored block needs a middle at least 50% similar', () => {
    const content = 'start\nalpha beta\nend\nother';
    assert.deepEqual(slice(content, strategyBlockAnchor(content, 'start\nalpha betx\nend')), ['start\nalpha beta\nend']);
    assert.deepEqual(strategyBlockAnchor(content, 'start\nzzzzzzzzzz\nend'), []);
  });

  test('several candidates need 70%: a 60% similar middle is enough alone but not in company', () => {
    // 'abcde' vs 'abcxy': ratio 2*3/10 = 0.6.
    const alone = 'S\nabcde\nE';
    assert.equal(strategyBlockAnchor(alone, 'S\nabcxy\nE').length, 1);
    const two = 'S\nabcde\nE\nS\nqqqqq\nE';
    assert.deepEqual(strategyBlockAnchor(two, 'S\nabcxy\nE'), []);
    assert.deepEqual(slice(two, strategyBlockAnchor(two, 'S\nabcdy\nE')), ['S\nabcde\nE']);
  });

  test('a two-line pattern matches on its anchors alone; a one-line pattern never', () => {
    const content = ' a \n b \nc';
    assert.deepEqual(slice(content, strategyBlockAnchor(content, 'a\nb')), [' a \n b ']);
    assert.deepEqual(strategyBlockAnchor(content, 'a'), []);
  });
});

describe('strategyContextAware', () => {
  test('half the lines 80% similar is enough', () => {
    const content = 'function go() {\ncompletely different\n}';
    const spans = strategyContextAware(content, 'function go() {\nreturn 42;\n}');
    assert.deepEqual(slice(content, spans), [content]);
  });

  test('fewer than half similar is no match', () => {
    assert.deepEqual(strategyContextAware('aaaa\nbbbb\ncccc', 'aaaa\nxxxx\nyyyy'), []);
  });
});

describe('strategyContextAwareStrict', () => {
  test('every non-blank line must be similar, blank pattern lines are free', () => {
    const content = 'first line here\nsomething\nlast line here';
    assert.deepEqual(slice(content, strategyContextAwareStrict(content, 'first line here\n\nlast line here')), [content]);
    assert.deepEqual(strategyContextAwareStrict(content, 'first line here\nnothing alike at all\nlast line here'), []);
  });

  test('the first and last lines are required even when the rest would carry a majority', () => {
    const content = 'aaaa\nbbbb\ncccc\nzzzz';
    assert.deepEqual(strategyContextAware(content, 'aaaa\nbbbb\ncccc\nyyyy').length, 1);
    assert.deepEqual(strategyContextAwareStrict(content, 'aaaa\nbbbb\ncccc\nyyyy'), []);
  });

  test('a pattern longer than the file is no match', () => {
    assert.deepEqual(strategyContextAwareStrict('one', 'one\ntwo'), []);
  });
});

test('the chain order and the similarity set', () => {
  assert.deepEqual(
    STRATEGIES.map(([name]) => name),
    ['exact', 'line_trimmed', 'whitespace_normalized', 'indentation_flexible', 'escape_normalized', 'trimmed_boundary', 'unicode_normalized', 'block_anchor', 'context_aware'],
  );
  assert.deepEqual([...SIMILARITY_STRATEGIES].sort(), ['block_anchor', 'context_aware']);
});
