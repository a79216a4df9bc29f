import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../shared/package-root.js';
import { operatorCommand } from '../../../supervisor/platform/operator-command.js';
import { CLI, HandClient, pkcePair } from '../../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';

// The consent page tells the operator what to run on the host; that command must work where the
// gateway is installed: the bin by its name when PATH finds this package's own bin (npm install -g,
// npm link), else the checkout's npm script (the bins of a checkout are on no PATH, and
// `npx --no-install` would install the checkout into npm's cache, building it).

const HOST = 'hermes.example.test';
const temp = tempDirs();
const gateways: TestGateway[] = [];
after(async () => {
  for (const gw of gateways) await gw.close();
  temp.removeAll();
});

/** A directory holding `hermes-mcp-auth` as npm links a bin: a symlink to `target`. */
function binDir(target: string): string {
  const dir = join(temp.make('hmcp-bin-'), 'bin');
  mkdirSync(dir);
  symlinkSync(target, join(dir, 'hermes-mcp-auth'));
  return dir;
}

/** The consent page of a fresh request on a gateway started with `path` as its PATH; the command it shows, with its code. */
async function consentCommand(path: string): Promise<{ gw: TestGateway; client: HandClient; page: { path: string; csrf: string; html: string }; argv: string[] }> {
  const gw = await startTestGateway({ env: { PATH: path, HERMES_MCP_PUBLIC_URL: `https://${HOST}` } });
  gateways.push(gw);
  const client = new HandClient(gw.url, HOST);
  await client.register();
  const page = await client.consentPage(await client.authorize({ code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
  const shown = /<pre>([\s\S]*?)<\/pre>/.exec(page.html)?.[1];
  assert.ok(shown, 'the page shows a command');
  return { gw, client, page, argv: shown.replace(/<[^>]+>/g, '').trim().split(/\s+/) };
}

/** Runs the page's command as the operator would on the host, in `cwd`, with the gateway's home; then presses Continue. */
async function approveAsShown(o: Awaited<ReturnType<typeof consentCommand>>, path: string, cwd: string): Promise<string | null> {
  const [cmd, ...args] = o.argv;
  const r = spawnSync(cmd!, [...args, '--yes'], { cwd, encoding: 'utf8', env: { PATH: path, HOME: o.gw.home, HERMES_HOME: o.gw.home, npm_config_update_notifier: 'false' } });
  assert.equal(r.status, 0, `${o.argv.join(' ')}: ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
  return (await o.client.continueTo(o.page.path, { csrf: o.page.csrf, action: 'continue' })).query?.get('code') ?? null;
}

test('from a checkout (hermes-mcp-auth on no PATH) the page names the npm script, and running it there approves', async () => {
  const path = process.env.PATH ?? '/usr/bin:/bin';
  assert.equal(operatorCommand('hermes-mcp-auth', path).inCheckout, true, 'this test runs where PATH has no hermes-mcp-auth of this package');
  const o = await consentCommand(path);
  assert.deepEqual(o.argv.slice(0, 5), ['npm', 'run', 'auth', '--', 'approve']);
  assert.match(o.page.html, /in the gateway's checkout/);
  assert.ok(await approveAsShown(o, path, packageRoot()), 'the client got its authorization code');
});

test("with this package's bin on PATH the page names the bin, and running it anywhere approves", async () => {
  const path = `${binDir(CLI)}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  const o = await consentCommand(path);
  assert.deepEqual(o.argv.slice(0, 2), ['hermes-mcp-auth', 'approve']);
  assert.doesNotMatch(o.page.html, /checkout/);
  assert.ok(await approveAsShown(o, path, temp.make('hmcp-anywhere-')), 'the client got its authorization code');
});

test('another hermes-mcp-auth on PATH (another install, maybe another version) is not named', () => {
  const other = join(temp.make('hmcp-other-'), 'auth-cli.js');
  writeFileSync(other, '#!/bin/sh\nexit 0\n');
  chmodSync(other, 0o755);
  assert.deepEqual(operatorCommand('hermes-mcp-auth', binDir(other)), { command: 'npm run auth --', inCheckout: true });
  assert.deepEqual(operatorCommand('hermes-mcp-auth', binDir(CLI)), { command: 'hermes-mcp-auth', inCheckout: false });
});
