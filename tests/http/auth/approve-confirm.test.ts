import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { spawn } from 'node-pty';
import { auditLines, authCli, CLI, HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { within } from '../../helpers/wait.js';

// `hermes-mcp-auth approve CODE` shows what the code would approve (client, redirect URI, scope)
// before approving anything: without a terminal to answer y on, it only shows it, and approves
// with --yes; on a terminal it asks, and approves only on y.

const HOST = 'hermes.example.test';
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}` } });
});
after(() => gw.close());

test('approve without --yes shows the request and approves nothing; with --yes it approves', async () => {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const page = await c.consentPage(await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  const shown = authCli(gw.home, ['approve', page.code]);
  assert.equal(shown.status, 4, shown.stderr);
  assert.match(shown.stdout, /Hand client/);
  assert.match(shown.stdout, /redirect URI: https:\/\/client\.example\/callback/);
  assert.match(shown.stdout, /scope: hermes:read hermes:full/);
  assert.match(shown.stdout, /--yes/);
  const json = authCli(gw.home, ['approve', page.code, '--read-only', '--json']);
  assert.deepEqual([json.status, json.json.error, json.json.client_id, json.json.scope], [4, 'not_confirmed', c.clientId, 'hermes:read']);
  assert.match((await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' })).last.body, /Not approved yet/);
  assert.ok(auditLines(gw.home).some((l) => l.outcome === 'approve_not_confirmed' && l.client === c.clientId));
  const approved = authCli(gw.home, ['approve', page.code, '--yes', '--json']);
  assert.equal(approved.status, 0, approved.stdout);
  assert.equal(approved.json.redirect_uri, 'https://client.example/callback');
  assert.ok((await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' })).query?.get('code'));
});

/** hermes-mcp-auth approve CODE on a real terminal, answering `answer` to its question; exit code and output. */
function approveOnTerminal(code: string, answer: string): Promise<{ exitCode: number; output: string }> {
  const term = spawn(process.execPath, [CLI, 'approve', code], { env: { PATH: process.env.PATH ?? '', HOME: gw.home, HERMES_HOME: gw.home }, cols: 120, rows: 30 });
  let output = '';
  let answered = false;
  term.onData((d) => {
    output += d;
    if (!answered && output.includes('[y/N]')) {
      answered = true;
      term.write(`${answer}\r`);
    }
  });
  return within(new Promise((resolve) => term.onExit(({ exitCode }) => resolve({ exitCode, output }))), 10_000, 'hermes-mcp-auth approve on a terminal');
}

test('on a terminal, approve asks after showing the request: n approves nothing, y approves', async () => {
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const page = await c.consentPage(await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  const no = await approveOnTerminal(page.code, 'n');
  assert.equal(no.exitCode, 4, no.output);
  assert.match(no.output, /Hand client[\s\S]*redirect URI: https:\/\/client\.example\/callback[\s\S]*scope: hermes:read hermes:full[\s\S]*Approve it\? \[y\/N\]/);
  const yes = await approveOnTerminal(page.code, 'y');
  assert.equal(yes.exitCode, 0, yes.output);
  assert.ok((await c.continueTo(page.path, { csrf: page.csrf, action: 'continue' })).query?.get('code'));
});
