import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { childrenOf, descendantsOf, processIsAlive, processStartTime, signalTree } from '../../shared/proc.js';
import { listeningPort, optionalComponents } from '../helpers/gateway.js';
import { runGatewayBin } from '../helpers/gateway-bin.js';
import { cmdline } from '../helpers/procfs.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor, within } from '../helpers/wait.js';

// How the gateway is started by hand: `npm start` (the README's first command) must leave no
// shell between npm and the gateway, so stopping npm stops the gateway and frees its port; and a
// port already in use says which settings choose another.

const temp = tempDirs();
const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.pid !== undefined && child.exitCode === null) signalTree(child.pid, 'SIGKILL');
  temp.removeAll();
});

/** A throwaway Hermes home that is also HOME and the one project root, and the environment for it. */
function gatewayEnv(port: number): Record<string, string> {
  const home = temp.make('hmcp-start-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  // npm_config_update_notifier: npm asks the registry about its own version otherwise (the
  // throwaway HOME has no npm configuration saying not to).
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_PORT: String(port), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), npm_config_update_notifier: 'false' };
}

/** Starts `cmd` and resolves to the port of its gateway's `listening` line (stderr), or rejects with its output when it exits first. */
function listening(cmd: string, args: string[], env: Record<string, string>): { child: ChildProcess; port: Promise<number>; exited: Promise<number | null> } {
  const child = spawn(cmd, args, { cwd: packageRoot(), env, stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port: listeningPort(child.stderr!, exited), exited };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

test('SIGTERM to `npm start` stops the gateway itself (npm runs it with no shell between) and frees its port', async () => {
  const npm = listening('npm', ['start'], gatewayEnv(0));
  const port = await within(npm.port, 60_000, 'npm start to listen');
  const gateway = descendantsOf(npm.child.pid!).find((pid) => /^node .*dist\/bin\/gateway\.js/.test(cmdline(pid)));
  assert.ok(gateway !== undefined, 'the gateway runs under npm');
  const startTime = processStartTime(gateway)!;
  try {
    assert.deepEqual(childrenOf(npm.child.pid!).map(cmdline), [cmdline(gateway)], "npm's child is the gateway itself, not a shell");
    npm.child.kill('SIGTERM');
    await within(npm.exited, 30_000, 'npm to exit');
    await waitFor(() => !processIsAlive(gateway, startTime), 30_000, 'the gateway to exit');
    assert.equal(await portIsFree(port), true, `port ${port} is free again`);
  } finally {
    if (processIsAlive(gateway, startTime)) signalTree(gateway, 'SIGKILL');
  }
});

test('a listen port already in use fails the start with the settings that choose another', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as AddressInfo;
  try {
    const r = await within(runGatewayBin(join(packageRoot(), 'dist', 'bin', 'gateway.js'), gatewayEnv(port)), 60_000, 'the gateway to give up');
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`failed to start: 127\\.0\\.0\\.1:${port} is already in use .*set HERMES_MCP_PORT \\(and HERMES_MCP_HOST\\) to a free address`));
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
