import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { auditLines, authCli } from '../../helpers/auth.js';
import { testClock } from '../../helpers/clock.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { freePort, startProxy } from '../../helpers/nginx.js';
import { tempDirs } from '../../helpers/temp.js';
import { within } from '../../helpers/wait.js';

// The whole "Connect ChatGPT" path with real parts: a gateway on loopback with a public URL, a real
// nginx terminating TLS (throw-away self-signed certificate) and forwarding the public Host, and the
// MCP SDK client's own OAuth support in a child process that trusts the certificate through
// NODE_EXTRA_CA_CERTS (tests/helpers/oauth-driver.ts). The test is the operator: it reads the
// approval code the consent page showed and approves it with hermes-mcp-auth. Then both protocol
// eras call tool_search, the access token expires (the test moves the gateway's clock past it),
// the SDK refreshes (the refresh token rotates; the old one is refused), and the audit log names
// the client and never holds a token.

const dirs = tempDirs();
after(() => dirs.removeAll());

const NAME = 'hermes-gateway.test';

test('ChatGPT-style OAuth through nginx: discovery, registration, operator approval, PKCE, both eras, refresh', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const clock = testClock();
  const gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${NAME}:${port}` }, limits: { authAccessTokenTtlSeconds: 60 }, now: clock.now });
  const proxy = await startProxy(dirs.make('hmcp-nginx-'), NAME, gw.port, port);
  const driver = spawn(process.execPath, [join(packageRoot(), 'dist', 'tests', 'helpers', 'oauth-driver.js')], {
    env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: proxy.certFile, DRIVER_MCP_URL: `${proxy.publicUrl}/mcp`, DRIVER_NAME: NAME },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  driver.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const events: Array<Record<string, unknown>> = [];
    let approval: ReturnType<typeof authCli> | undefined;
    await within(
      (async () => {
        for await (const line of createInterface({ input: driver.stdout })) {
          const event = JSON.parse(line) as Record<string, unknown>;
          events.push(event);
          if (event.event === 'approval_code') {
            approval = authCli(gw.home, ['approve', String(event.code), '--yes', '--json']);
            driver.stdin.write('approved\n');
          }
          if (event.event === 'expire_access_token') {
            clock.advance(61_000);
            driver.stdin.write('expired\n');
          }
          if (event.event === 'done' || event.event === 'error') return;
        }
      })(),
      50_000,
      'the OAuth driver',
    );
    const done = events.at(-1)!;
    assert.equal(done.event, 'done', `driver failed: ${String(done.message)}\n${stderr}`);
    const registered = events.find((e) => e.event === 'registered')!;
    const shown = events.find((e) => e.event === 'approval_code')!;
    assert.deepEqual(shown.page_shows, { client: true, redirect: true, scope: true });
    assert.equal(approval?.status, 0, approval?.stderr);
    assert.equal(approval?.json.client_id, registered.client_id);
    assert.equal(approval?.json.redirect_uri, 'http://127.0.0.1:9/callback');
    assert.match(String(done.legacy), /read_file/);
    assert.match(String(done.modern), /read_file/);
    assert.match(String(done.after_expiry), /terminal/);
    assert.equal(done.access_token_changed, true);
    assert.equal(done.refresh_token_rotated, true);
    assert.deepEqual([(done.old_refresh_reuse as { status: number }).status, (done.old_refresh_reuse as { body: { error: string } }).body.error], [400, 'invalid_grant']);

    const audit = auditLines(gw.home);
    const calls = audit.filter((l) => l.path === '/mcp' && l.rpc_method === 'tools/call' && l.client === registered.client_id);
    assert.ok(calls.length >= 3, JSON.stringify(audit));
    assert.ok(calls.every((l) => l.grant === 'oauth' && l.outcome === 'ok' && l.scope === 'hermes:read hermes:full' && l.tool === 'tool_search'));
    // nginx forwarded the caller's address; the audit line keeps it (loopback here).
    assert.ok(calls.every((l) => l.ip === '127.0.0.1'));
    assert.ok(audit.some((l) => l.path === '/mcp' && l.status === 401 && l.outcome === 'unauthorized:invalid_token'));
    const token = String(done.access_token);
    const everything = JSON.stringify(audit) + gw.rawLog();
    assert.ok(!everything.includes(token), 'an access token reached the audit or gateway log');
    assert.ok(!everything.includes(String(shown.code)), 'the approval code reached a log');
  } finally {
    if (driver.exitCode === null) driver.kill('SIGKILL');
    await proxy.stop();
    await gw.close();
  }
});
