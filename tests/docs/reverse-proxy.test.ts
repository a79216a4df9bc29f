import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { CADDY, CURL, ensurePackage } from '../../scripts/test-prerequisites.js';
import { auditLines, createStaticToken } from '../helpers/auth.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, makeCertificate, startProxy } from '../helpers/nginx.js';
import { markedBlocks } from '../helpers/readme.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// docs/operations.md "Behind a reverse proxy": the nginx server block and the Caddyfile under their
// docs-check markers, each run by the real server (Debian's nginx and caddy, throw-away instances
// on an ephemeral loopback port) with only the name, certificate, listen address and upstream port
// replaced, in front of a real gateway whose HERMES_MCP_PUBLIC_URL is that proxy. Through each:
// /readyz answers the remote view (the forwarding headers arrived), /mcp without a credential 401,
// a tools/call with a static token is answered (JSON or an event stream), a 2 MB body reaches the
// gateway (no proxy 413 below maxRequestBodyBytes), and the audit line names the token.

const dirs = tempDirs();
after(() => dirs.removeAll());

const NAME = 'hermes-gateway.test';
const DOC = 'docs/operations.md';
const execFileAsync = promisify(execFile);

/** Replaces `from` (which must be in `text`) everywhere. */
function must(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the documented block no longer has ${JSON.stringify(from)}:\n${text}`);
  return text.replaceAll(from, to);
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** curl through the proxy by its public name, trusting the throw-away certificate. */
async function curl(base: string, port: number, cert: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const dir = dirs.make('hmcp-curl-');
  const args = ['-s', '-i', '--cacert', cert, '--resolve', `${NAME}:${port}:127.0.0.1`, '-X', options.method ?? 'GET'];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (options.body !== undefined) {
    const file = join(dir, 'body.json');
    writeFileSync(file, options.body);
    args.push('--data-binary', `@${file}`);
  }
  args.push(`${base}${path}`);
  let { stdout } = await execFileAsync(ensurePackage(CURL), args, { timeout: 30_000, maxBuffer: 8 * 1024 * 1024 });
  // curl asks a large body's `Expect: 100-continue`: an interim `100 Continue` head comes first.
  while (/^HTTP\/[\d.]+ 1\d\d /.test(stdout)) stdout = stdout.slice(stdout.indexOf('\r\n\r\n') + 4);
  const split = stdout.indexOf('\r\n\r\n');
  const head = stdout.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(head[0]!.split(' ')[1]), headers, body: stdout.slice(split + 4) };
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tool_search' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** The JSON-RPC message of a reply: the body itself, or the data of its one event. */
function message(reply: Reply): { result?: { isError?: boolean; content?: unknown[] }; error?: unknown } {
  const type = reply.headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) {
    const data = /^data: (.*)$/m.exec(reply.body);
    assert.ok(data, `no data line in the event stream:\n${reply.body.slice(0, 500)}`);
    return JSON.parse(data[1]!) as ReturnType<typeof message>;
  }
  assert.match(type, /^application\/json/, `content-type ${type}`);
  return JSON.parse(reply.body) as ReturnType<typeof message>;
}

/** What every proxy must get right, checked through it. */
async function checkThrough(gw: TestGateway, base: string, port: number, cert: string, token: string): Promise<void> {
  const ready = await curl(base, port, cert, '/readyz');
  assert.deepEqual(Object.keys(JSON.parse(ready.body) as object), ['status'], `a proxied /readyz shows only its status (the request counts as remote): ${ready.body}`);

  const anonymous = await curl(base, port, cert, '/mcp', { method: 'POST', headers: MCP_HEADERS, body: '{}' });
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers['www-authenticate'] ?? '', /^Bearer .*resource_metadata="https:\/\/hermes-gateway\.test:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);

  const call = await curl(base, port, cert, '/mcp', {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tool_search', arguments: { queries: ['read a file'] }, _meta: META } }),
  });
  assert.equal(call.status, 200, call.body);
  const answer = message(call);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  assert.notEqual(answer.result?.isError, true, JSON.stringify(answer.result));
  assert.match(JSON.stringify(answer.result?.content), /read_file/);

  // 2 MB: above nginx's own 1 MiB default, below the gateway's 4 MiB maxRequestBodyBytes. The gateway
  // answers it (a JSON-RPC message), not the proxy with 413.
  const big = await curl(base, port, cert, '/mcp', {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tool_search', arguments: { queries: ['x'.repeat(2 * 1024 * 1024)] }, _meta: META } }),
  });
  assert.notEqual(big.status, 413, `the proxy refused a body the gateway takes: ${big.body.slice(0, 300)}`);
  assert.equal(typeof message(big), 'object', `${big.status} ${JSON.stringify(big.headers)} ${big.body.slice(0, 300)}`);

  const calls = auditLines(gw.home).filter((l) => l.path === '/mcp' && l.client === 'proxy-check');
  assert.ok(calls.length >= 2, JSON.stringify(auditLines(gw.home)));
  assert.ok(calls.every((l) => l.grant === 'static' && l.ip === '127.0.0.1'), JSON.stringify(calls));
}

test('the documented nginx server block serves a gateway: public Host, forwarding headers, bodies, tool calls', { timeout: 60_000 }, async () => {
  const [block] = markedBlocks('nginx-proxy', DOC);
  const timeout = /proxy_read_timeout (\d+)s;/.exec(block!);
  assert.ok(timeout && Number(timeout[1]) >= 120, 'proxy_read_timeout well above ChatGPT\'s ~60 s per call (nginx defaults to 60 s)');
  assert.match(block!, /^\s*proxy_buffering off;$/m);
  const port = await freePort();
  const gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${NAME}:${port}` } });
  const token = createStaticToken(gw.home, 'proxy-check');
  const proxy = await startProxy(dirs.make('hmcp-nginx-'), NAME, gw.port, port, ({ cert, key }) => {
    let server = must(block!, 'listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`);
    server = must(server, 'hermes.example.com;', `${NAME};`);
    server = must(server, '/etc/letsencrypt/live/hermes.example.com/fullchain.pem', cert);
    server = must(server, '/etc/letsencrypt/live/hermes.example.com/privkey.pem', key);
    return must(server, 'http://127.0.0.1:3060;', `http://127.0.0.1:${gw.port};`);
  });
  try {
    await checkThrough(gw, proxy.publicUrl, port, proxy.certFile, token);
  } finally {
    await proxy.stop();
    await gw.close();
  }
});

test('the documented Caddyfile serves a gateway: public Host, forwarding headers, bodies, tool calls', { timeout: 60_000 }, async () => {
  const caddy = ensurePackage(CADDY);
  const [block] = markedBlocks('caddy-proxy', DOC);
  const port = await freePort();
  const gw = await startTestGateway({ env: { HERMES_MCP_PUBLIC_URL: `https://${NAME}:${port}` } });
  const token = createStaticToken(gw.home, 'proxy-check');
  const dir = dirs.make('hmcp-caddy-');
  const { cert, key } = makeCertificate(dir, NAME);
  // The site as documented; the test's certificate in place of the automatic one (no ACME, no
  // network), bound to loopback; no admin endpoint, no :80 redirect listener, state in the temp dir.
  let site = must(block!, 'hermes.example.com {', `https://${NAME}:${port} {\n\ttls ${cert} ${key}\n\tbind 127.0.0.1`);
  site = must(site, 'reverse_proxy 127.0.0.1:3060', `reverse_proxy 127.0.0.1:${gw.port}`);
  const caddyfile = join(dir, 'Caddyfile');
  mkdirSync(join(dir, 'data'));
  writeFileSync(caddyfile, `{\n\tadmin off\n\tauto_https disable_redirects\n\tstorage file_system ${join(dir, 'data')}\n}\n${site}\n`);
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') };
  const child: ChildProcess = spawn(caddy, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(() => {
      if (child.exitCode !== null) throw new Error(`caddy exited: ${stderr}`);
      return /serving initial configuration|server running/.test(stderr);
    }, 20_000, `caddy on 127.0.0.1:${port}`);
    await checkThrough(gw, `https://${NAME}:${port}`, port, cert, token);
  } finally {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await gw.close();
  }
});
