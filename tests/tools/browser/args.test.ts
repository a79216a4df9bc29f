import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { startFixturePages, type FixturePages } from '../../fixtures/camofox/pages.js';
import { ALLOW_LOOPBACK_PAGES, browse, homeWithConfig } from '../../helpers/browser.js';
import { startStandin, type Standin } from '../../helpers/camofox.js';
import { openSession, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// The browser tools over MCP read booleans sent as strings as Hermes' dispatch does
// (supervisor/core/hermes-args.ts): `"full": "false"` and `"clear": "TRUE"` are answered against
// the Camofox stand-in; `"annotate": "yes"`, which Hermes' dispatch leaves a string, is
// INVALID_ARGUMENTS and no screenshot is taken.

let standin: Standin;
let pages: FixturePages;
let gw: TestGateway;
let home: string;
let client: Client;
let token: string;

before(async () => {
  pages = await startFixturePages();
  standin = await startStandin();
  home = homeWithConfig(ALLOW_LOOPBACK_PAGES);
  gw = await startTestGateway({ home, env: { CAMOFOX_URL: `http://127.0.0.1:${standin.port}` } });
  ({ client, token } = await openSession(gw.mcpUrl));
});

after(async () => {
  await client?.close();
  await gw?.close();
  await standin?.stop();
  await pages?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('browser_snapshot "full": "false" and browser_console "clear": "TRUE" are answered; "annotate": "yes" is INVALID_ARGUMENTS', async () => {
  const nav = await browse(client, token, 'browser_navigate', { url: `${pages.origin}/form.html` });
  assert.equal(nav.isError, false, nav.text);
  const snap = await browse(client, token, 'browser_snapshot', { full: 'false' });
  assert.equal(snap.isError, false, snap.text);
  assert.match(String(snap.data.snapshot), /\[e\d+\]/);
  const console = await browse(client, token, 'browser_console', { clear: 'TRUE', expression: '6 * 7' });
  assert.equal(console.isError, false, console.text);
  assert.equal(console.data.result, 42);
  const bad = await browse(client, token, 'browser_vision', { question: 'what is shown?', annotate: 'yes' });
  assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
  assert.match(String(bad.data.message), /annotate/);
});
