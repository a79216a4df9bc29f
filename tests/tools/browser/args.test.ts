import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserSuite } from './fixture.js';

// The browser tools over MCP read booleans sent as strings as Hermes' dispatch does
// (supervisor/core/hermes-args.ts): `"full": "false"` and `"clear": "TRUE"` are answered against
// the Camofox stand-in; `"annotate": "yes"`, which Hermes' dispatch leaves a string, is
// INVALID_ARGUMENTS and no screenshot is taken.

const b = browserSuite();

test('browser_snapshot "full": "false" and browser_console "clear": "TRUE" are answered; "annotate": "yes" is INVALID_ARGUMENTS', async () => {
  const nav = await b.browse('browser_navigate', { url: `${b.pages.origin}/form.html` });
  assert.equal(nav.isError, false, nav.text);
  const snap = await b.browse('browser_snapshot', { full: 'false' });
  assert.equal(snap.isError, false, snap.text);
  assert.match(String(snap.data.snapshot), /\[e\d+\]/);
  const console = await b.browse('browser_console', { clear: 'TRUE', expression: '6 * 7' });
  assert.equal(console.isError, false, console.text);
  assert.equal(console.data.result, 42);
  const bad = await b.browse('browser_vision', { question: 'what is shown?', annotate: 'yes' });
  assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
  assert.match(String(bad.data.message), /annotate/);
});
