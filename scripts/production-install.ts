import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../shared/package-root.js';
import { nodeHeadersPrefix } from './node-binary.js';
import { checkoutFiles } from './staged-checkout.js';

// CI's proof of the production install (docs/operations.md, Production install): the checkout's
// files and the dist/ built by a full install, in a staged copy, then `npm ci --omit=dev` there — lock-exact,
// dependencies only, the native modules and the subreaper addon compiled, no build step —
// and the built gateway started from it as the systemd unit starts it, on an ephemeral loopback
// port with a throwaway home and root, until GET /healthz answers; then SIGTERM to its pid.
//
//   node dist/scripts/production-install.js       (after npm install, which builds dist/)

const root = packageRoot();
// Outside the checkout: Node (and tsc) look for modules in every parent's node_modules, so a stage
// under this checkout would find the full install's packages and prove nothing about its own.
const scratch = mkdtempSync(join(tmpdir(), 'hmcp-production-'));
const stage = join(scratch, 'checkout');
const home = join(scratch, 'home');
const started = Date.now();
let gatewayPid: number | undefined;

function step(what: string): void {
  process.stdout.write(`production-install: ${what} (${Math.round((Date.now() - started) / 1000)} s)\n`);
}

function fail(message: string): never {
  try {
    if (gatewayPid !== undefined) process.kill(gatewayPid, 'SIGKILL');
  } catch {
    // already gone
  }
  process.stderr.write(`production-install: FAILED: ${message}\n(the staged copy is kept for a look: ${stage})\n`);
  process.exit(1);
}

/** Resolves with the gateway's listening port (its first `listening` log line), or fails with its output. */
function startGateway(env: NodeJS.ProcessEnv): Promise<{ port: number; exited: Promise<number | null>; output: () => string }> {
  // As systemd/hermes-mcp-gateway.service.in does: node with the unit's flag, the built main.js.
  const child = spawn(process.execPath, ['--max-semi-space-size=2', join(stage, 'dist', 'bin', 'gateway.js')], { cwd: stage, env, stdio: ['ignore', 'ignore', 'pipe'] });
  gatewayPid = child.pid;
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let listened = false;
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`the gateway did not listen within 60 s:\n${output}`), 60_000);
    createInterface({ input: child.stderr! }).on('line', (line) => {
      output += `${line}\n`;
      try {
        const e = JSON.parse(line) as { event?: string; port?: number };
        if (e.event !== 'listening' || !e.port) return;
        clearTimeout(timer);
        listened = true;
        resolve({ port: e.port, exited, output: () => output });
      } catch {
        // not a log line
      }
    });
    void exited.then((code) => listened || fail(`the gateway exited (${code}) before listening:\n${output}`));
  });
}

function healthz(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/healthz', timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'bin', 'gateway.js'))) fail('dist/ is not built here: run npm install (or npm ci) first');
  for (const file of checkoutFiles(root)) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    cpSync(join(root, file), join(stage, file));
  }
  cpSync(join(root, 'dist'), join(stage, 'dist'), { recursive: true });
  // Gone if `prepare` rebuilt dist/ (rm -rf dist first), which a production install must not try.
  const asBuilt = join(stage, 'dist', '.as-built');
  writeFileSync(asBuilt, '');
  const headers = nodeHeadersPrefix(process.execPath);
  const npmEnv = { ...process.env, ...(headers ? { npm_config_nodedir: headers } : {}) };
  step(`staged the checkout and its dist/ in ${stage}; npm ci --omit=dev${headers ? ` (node-gyp: headers of ${headers})` : ''}`);
  const ci = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: stage, env: npmEnv, encoding: 'utf8' });
  const npmOutput = `${ci.stdout}${ci.stderr}`;
  if (ci.status !== 0) fail(`npm ci --omit=dev exited ${ci.status}:\n${npmOutput}`);
  // npm 11 skips a dependency's install scripts that allowScripts does not cover, and says so.
  if (/install-scripts/.test(npmOutput)) fail(`npm skipped install scripts (allowScripts in package.json):\n${npmOutput}`);
  if (!readFileSync(join(stage, 'package-lock.json')).equals(readFileSync(join(root, 'package-lock.json')))) fail('npm ci changed the lock file');
  if (!existsSync(asBuilt)) fail('prepare rebuilt dist/ instead of keeping the one built by the full install');
  // TypeScript itself stays (valibot's optional peer, which npm keeps under --omit=dev); what only
  // the build and the tests use must be gone.
  for (const dev of ['@types/node', 'pyright', 'typescript-language-server', 'playwright-core', 'ttsc']) if (existsSync(join(stage, 'node_modules', dev))) fail(`node_modules/${dev} is installed: dev dependencies were not omitted`);
  const natives = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').prepare('select 1').get(); require('node-pty'); require('./build/Release/subreaper.node')"], { cwd: stage, encoding: 'utf8' });
  if (natives.status !== 0) fail(`a native module does not load:\n${natives.stderr}`);
  step('installed: dependencies only, natives load, lock unchanged; starting the gateway');
  mkdirSync(home);
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const gateway = await startGateway({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    HERMES_HOME: home,
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_PORT: '0',
    HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider',
  });
  const health = await healthz(gateway.port).catch((e: unknown) => fail(`GET /healthz: ${String(e)}`));
  if (health.status !== 200 || (JSON.parse(health.body) as { status?: string }).status !== 'ok') fail(`GET /healthz answered ${health.status}: ${health.body}`);
  if (/subreaper_unavailable/.test(gateway.output())) fail(`the gateway could not load the subreaper addon:\n${gateway.output()}`);
  process.kill(gatewayPid!, 'SIGTERM');
  const code = await gateway.exited;
  gatewayPid = undefined;
  if (code !== 0) fail(`the gateway exited ${code} on SIGTERM:\n${gateway.output()}`);
  rmSync(scratch, { recursive: true, force: true });
  step(`ok: GET /healthz answered 200 on port ${gateway.port}, and SIGTERM stopped the gateway`);
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
