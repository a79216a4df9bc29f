import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Surface } from './harness.js';
import { hiddenPieces, hidesAll, leakedPieces } from './redaction-judge.js';

// The leak check behind the `hides-all` check divergences name (`{check: hides-all}`): a difference from Hermes' redaction is
// accepted only where the gateway's answer shows no piece of the text that Hermes' answer hides.

test('what Hermes hid is what a character diff from the text to its answer removed', () => {
  assert.deepEqual(hiddenPieces('token glpat-LuPgqSyRXzqh here', 'token glpat-...Xzqh here'), ['LuPgqSyR']);
  assert.deepEqual(hiddenPieces('nothing here', 'nothing here'), []);
});

test('a key left in the clear, or a head/tail where Hermes wrote ***, is a leak', () => {
  const text = 'token glpat-LuPgqSyRXzqh here';
  assert.deepEqual(leakedPieces(text, 'token glpat-...Xzqh here', text), ['LuPgqSyR', 'LuPg', 'uPgq', 'PgqS', 'gqSy', 'qSyR']);
  assert.equal(hidesAll('API_KEY=abcdef0123456789abcdef', 'API_KEY=***', 'API_KEY=abcdef...cdef'), false);
});

test('masking more, or less revealingly, is no leak', () => {
  assert.equal(hidesAll('API_KEY=abcdef0123456789abcdef', 'API_KEY=abcdef...cdef', 'API_KEY=***'), true);
  assert.equal(hidesAll('MAX_TOKENS=100', 'MAX_TOKENS=100', 'MAX_TOKENS=***'), true);
  assert.equal(hidesAll('token glpat-LuPgqSyRXzqh here', 'token glpat-...Xzqh here', 'token «redacted:glpat-…» here'), true);
});

test("Hermes masking a neighbour of the value (its closing quote, the next line) shows as a leak: only a listed reason excuses it", () => {
  assert.deepEqual(leakedPieces("-H 'x-api-key: abcdef0123456789abcdef0123'", "-H 'x-api-key: abcdef...123'", "-H 'x-api-key: abcdef...0123'"), ['0123']);
  assert.equal(hidesAll('API_KEY=\nPATH=/usr/bin', 'API_KEY=***', 'API_KEY=\nPATH=/usr/bin'), false);
});

test('a divergence whose predicate is the hides-all check covers a differing field only where the check holds', () => {
  // cmd-cat-env is a case of this pin's union entry (`{check: hides-all}`) in its terminal field.
  const text = 'API_KEY=abc123\nMAX_TOKENS=100\nDEBUG=true';
  const hermesAnswer = { terminal: text };
  const surface = new Surface('redaction', { 'hides-all': (c) => typeof c.gateway === 'string' && typeof c.hermes === 'string' && hidesAll(text, c.hermes, c.gateway) });
  assert.equal(surface.judge('cmd-cat-env', { terminal: 'API_KEY=***\nMAX_TOKENS=***\nDEBUG=true' }, hermesAnswer, 'direct').verdict, 'divergent');
  // Hermes' answer here hides the key; a gateway answer that shows it is different, not divergent.
  assert.equal(surface.judge('cmd-cat-env', { terminal: text }, { terminal: 'API_KEY=***\nMAX_TOKENS=100\nDEBUG=true' }, 'direct').verdict, 'different');
  // A surface that does not provide a check its entries name reports it.
  assert.match(new Surface('redaction').problems().join('\n'), /names the check hides-all, which this surface does not provide/);
});
