import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { authCli, HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// `hermes-mcp-auth pending` lists the requests waiting on a consent page (client, redirect host,
// scope, age and expiry; never a code), and the listing commands (pending, clients, token list)
// never create the database: on a home without one they answer "none" and leave nothing behind.

const HOST = 'hermes.example.test';
const temp = tempDirs();
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${HOST}` } });
});
after(async () => {
  await gw.close();
  temp.removeAll();
});

test('pending shows each waiting request: client, redirect host, scope, age and expiry, then approved', async () => {
  const empty = authCli(gw.home, ['pending', '--json']);
  assert.deepEqual([empty.status, empty.json.pending], [0, []]);
  const c = new HandClient(gw.url, HOST);
  await c.register();
  const page = await c.consentPage(await c.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  const json = authCli(gw.home, ['pending', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const [row, ...others] = json.json.pending as Array<Record<string, unknown>>;
  assert.deepEqual(others, []);
  assert.equal(row!.client_id, c.clientId);
  assert.equal(row!.client_name, 'Hand client');
  assert.equal(row!.redirect_host, 'client.example');
  assert.equal(row!.approved, false);
  assert.ok(typeof row!.age_seconds === 'number' && row!.age_seconds >= 0 && row!.age_seconds < 60, String(row!.age_seconds));
  // The interaction lives 10 minutes by default (authConsentTtlSeconds).
  assert.ok(typeof row!.expires_in_seconds === 'number' && row!.expires_in_seconds > 500 && row!.expires_in_seconds <= 600, String(row!.expires_in_seconds));
  assert.ok(!JSON.stringify(json.json).includes(page.code), 'the code is only on the consent page');
  const text = authCli(gw.home, ['pending']);
  assert.match(text.stdout, new RegExp(`^Hand client \\(${c.clientId}\\)  redirect to client\\.example  hermes:read hermes:full  waiting \\d+s, expires in (9m|10m) \\d+s$`, 'm'));
  assert.match(text.stdout, /hermes-mcp-auth approve CODE/);
  assert.equal(authCli(gw.home, ['approve', page.code, '--yes']).status, 0);
  assert.match(authCli(gw.home, ['pending']).stdout, /approved: waiting for Continue/);
});

test('pending, clients and token list on a home without a database: none, and no file made', () => {
  const home = temp.make('hmcp-auth-none-');
  const before = readdirSync(home);
  for (const args of [['pending'], ['clients'], ['token', 'list']]) {
    const r = authCli(home, [...args, '--json']);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.deepEqual(Object.values(r.json).filter(Array.isArray), [[]], `${args.join(' ')} lists nothing`);
  }
  assert.match(authCli(home, ['pending']).stdout, /^No pending requests\.$/m);
  assert.deepEqual(readdirSync(home), before, 'no database, log or directory created');
  // Also when the home itself does not exist.
  const missing = join(home, 'missing');
  assert.equal(authCli(missing, ['clients']).status, 0);
  assert.equal(existsSync(missing), false);
});

test('the listing commands open an existing database read-only: its file is not written', () => {
  const home = temp.make('hmcp-auth-ro-');
  mkdirSync(join(home, 'logs'));
  assert.equal(authCli(home, ['token', 'create', 'ci', '--json']).status, 0);
  const db = join(home, 'gateway-auth.sqlite3');
  const stamp = statSync(db).mtimeMs;
  for (const args of [['pending'], ['clients'], ['token', 'list']]) assert.equal(authCli(home, args).status, 0);
  assert.equal(statSync(db).mtimeMs, stamp);
  assert.deepEqual((authCli(home, ['token', 'list', '--json']).json.tokens as Array<{ name: string }>).map((t) => t.name), ['ci']);
});
