import assert from 'node:assert/strict';
import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spawn as spawnTerminal, type IPty } from 'node-pty';
import { packageRoot } from '../../../shared/package-root.js';
import { ConfigError, loadConfig } from '../../../supervisor/platform/config.js';
import { connect, optionalComponents, sessionToken, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor, within } from '../../helpers/wait.js';

// On a terminal (or with --log-format pretty) the log is lines for a person, with level names; in a
// pipe it stays one JSON object a line. Once listening, the gateway says where it serves, what is
// ready, what to do about each component that is not, required or optional (the very reasons and
// actions of /readyz), and a first client command to paste. The 10-second worker_usage samples are debug.

const BIN = join(packageRoot(), 'dist', 'bin', 'gateway.js');
const dirs = tempDirs();
const running: Array<{ stop(): void }> = [];
after(() => {
  for (const r of running) r.stop();
  dirs.removeAll();
});

const INSPECTOR = (port: number) => `npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 mcp-inspector --cli http://127.0.0.1:${port}/mcp --transport http --method tools/list`;

/**
 * The bin's environment: a throwaway home, port 0, and LSP and the graph left required, so two
 * components are not ready (a required graph upstream that is missing is also a warning at start).
 */
function binEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = dirs.make('hmcp-console-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HERMES_HOME: home,
    HOME: home,
    HERMES_MCP_ROOTS: home,
    HERMES_MCP_PORT: '0',
    HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('lsp', 'graph'),
    ...extra,
  };
}

/** Runs the bin on a pseudo-terminal until `done` holds for its output; stopped by the after hook. */
async function onTerminal(args: string[], done: (output: string) => boolean): Promise<string> {
  const term: IPty = spawnTerminal(BIN, args, { env: binEnv(), cols: 400, rows: 50 });
  let output = '';
  let exited = false;
  term.onData((d) => (output += d));
  const exit = new Promise<void>((resolve) => term.onExit(() => resolve()));
  void exit.then(() => (exited = true));
  running.push({ stop: () => !exited && term.kill('SIGKILL') });
  await waitFor(() => done(output) || exited, 60_000, 'the gateway on a terminal to print its summary');
  term.kill('SIGTERM');
  await within(exit, 30_000, 'the gateway to stop');
  return output.replace(/\r\n/g, '\n');
}

/** Stops a piped gateway and waits until it has. */
async function stop(child: ChildProcess): Promise<void> {
  const exit = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await within(exit, 30_000, 'the gateway to stop');
}

/** Runs the bin with stderr piped until `done` holds for it. */
async function piped(args: string[], done: (stderr: string) => boolean): Promise<{ stderr: string; child: ChildProcess }> {
  const child = spawnProcess(BIN, args, { env: binEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  running.push({ stop: () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL') });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  await waitFor(() => done(stderr) || child.exitCode !== null, 60_000, 'the piped gateway to log its summary');
  return { stderr, child };
}

test('on a terminal: readable lines with level names, then the summary with the first client command', async () => {
  const output = await onTerminal([], (o) => /mcp-inspector --cli .*tools\/list/.test(o));
  const port = Number(/serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(output)?.[1]);
  assert.ok(port > 0, output);
  assert.doesNotMatch(output, /\{"level":/, 'no JSON on a terminal');
  assert.match(output, /^\d\d:\d\d:\d\d INFO  hermes-mcp-gateway listening \[listening\]  host=127\.0\.0\.1 port=\d+$/m);
  assert.match(output, /^\d\d:\d\d:\d\d WARN  graph upstream unavailable at startup/m, 'warnings by name');
  assert.match(output, /: not ready \(2 required components\)$/m);
  assert.match(output, /^ {2}ready: .*\bstartup_files\b.*\bjob_store\b/m);
  assert.match(output, /^ {2}not ready: lsp \(not_configured\): no trusted workspace/m);
  assert.match(output, /^ {4}to do: list the project roots whose language servers may run in HERMES_MCP_LSP_TRUSTED_ROOTS/m);
  // An optional component gets its reason and its one thing to do too, not a bare status word.
  assert.match(output, /^ {2}optional, not ready: memory \(not_configured\): .+\n {4}to do: .+$/m);
  assert.doesNotMatch(output, /optional, not ready: .*\), \w+ \(/, 'one component a line, not a list of statuses');
  assert.ok(output.includes(`\n    ${INSPECTOR(port)}\n`), output);
});

test('piped: JSON lines and no summary (a service asks /readyz; nothing is probed at start)', async () => {
  const { stderr, child } = await piped([], (s) => s.includes('"event":"listening"'));
  const port = (JSON.parse(stderr.split('\n').find((l) => l.includes('"event":"listening"'))!) as { port: number }).port;
  // /readyz runs the same probes a summary would have run, so one would be written by now.
  assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 503);
  await stop(child);
  const records = stderr.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.ok(records.length > 0 && !records.some((r) => r.event === 'startup_summary'), stderr);
});

test('--log-format pretty gives readable lines in a pipe too, with /readyz\'s own reasons and actions; a bad format is a usage error', async () => {
  const { stderr, child } = await piped(['--log-format', 'pretty'], (s) => s.includes('first client command:'));
  assert.match(stderr, /^\d\d:\d\d:\d\d INFO  hermes-mcp-gateway listening/m);
  assert.doesNotMatch(stderr, /\{"level":/);
  const port = Number(/serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)?.[1]);
  const readyz = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as {
    reasons: Array<{ component: string; reason: string; action: string }>;
    components: Record<string, { ready: boolean; required: boolean; status: string; reason?: string; action?: string }>;
  };
  assert.ok(readyz.reasons.length > 0);
  for (const r of readyz.reasons) {
    const status = readyz.components[r.component]!.status;
    assert.ok(stderr.includes(`\n  not ready: ${r.component} (${status}): ${r.reason}\n    to do: ${r.action}\n`), `${r.component}'s reason and action as /readyz gives them:\n${stderr}`);
  }
  // The optional ones that are not ready: each with the reason and the action /readyz gives it.
  const optional = Object.entries(readyz.components).filter(([, c]) => !c.ready && !c.required);
  assert.ok(optional.length >= 3, JSON.stringify(readyz.components));
  for (const [name, c] of optional) {
    assert.ok(c.reason && c.action, `${name}: /readyz gives a reason and an action: ${JSON.stringify(c)}`);
    assert.ok(stderr.includes(`\n  optional, not ready: ${name} (${c.status}): ${c.reason}\n    to do: ${c.action}\n`), `${name}'s reason and action as /readyz gives them:\n${stderr}`);
  }
  await stop(child);
  const bad = spawnProcess(BIN, ['--log-format=xml'], { env: binEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  bad.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => bad.once('exit', resolve));
  assert.equal(code, 2);
  assert.match(err, /--log-format must be one of json, pretty, got "xml"/);
});

test('worker_usage, sampled every 10 s while a worker lives, is logged at debug', async () => {
  const gw = await startTestGateway({ env: { HERMES_MCP_LOG_LEVEL: 'debug' } });
  const client = await connect(gw.mcpUrl, 'modern');
  try {
    // A terminal worker stays alive for its owner after the call.
    const token = await sessionToken(client);
    assert.equal((await viaBridge(client, 'terminal', { command: 'true' }, token)).isError, false);
    const sample = await waitFor(() => gw.logs.find((l) => l.event === 'worker_usage'), 15_000, 'a worker_usage sample');
    assert.equal(sample.level, 20, 'debug');
  } finally {
    await client.close().catch(() => {});
    await gw.close();
  }
});

test('HERMES_MCP_LOG_FORMAT: auto by default, json or pretty, anything else refused at startup', () => {
  assert.equal(loadConfig({}).logFormat, 'auto');
  assert.equal(loadConfig({ HERMES_MCP_LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
  assert.equal(loadConfig({ HERMES_MCP_LOG_FORMAT: 'json' }).logFormat, 'json');
  assert.throws(() => loadConfig({ HERMES_MCP_LOG_FORMAT: 'xml' }), (e: Error) => e instanceof ConfigError && /HERMES_MCP_LOG_FORMAT must be auto, json or pretty/.test(e.message));
});
