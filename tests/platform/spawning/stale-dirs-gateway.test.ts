import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { gatewayMain } from '../../../bench/launch.js';
import { readOwnerRecord } from '../../../supervisor/platform/spawning/private-dirs.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../../helpers/gateway.js';
import { startGatewayBin, type BinGateway } from '../../helpers/gateway-bin.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// Real gateways sharing the default state directory ($TMPDIR/hermes-mcp-gateway-<uid>, under a
// TMPDIR of this test's own): one killed with SIGKILL leaves its exec/zygote/terminal directories
// behind; the next gateway to start removes them, and says so in one log line, while the
// directories of a gateway still running beside it are left as they are (and it keeps working).

const dirs = tempDirs();
const running = new Set<BinGateway>();
after(async () => {
  for (const gateway of running) await gateway.stop();
  dirs.removeAll();
});

// Short: the unit sockets inside must fit a Unix socket path (107 bytes).
const tmp = dirs.make('hsd-');
const state = join(tmp, `hermes-mcp-gateway-${process.getuid!()}`);

async function start(env: Record<string, string> = {}): Promise<{ gateway: BinGateway; client: Client }> {
  const home = dirs.make('hmcp-staledirs-home-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const inherited = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const gateway = await startGatewayBin(gatewayMain, {
    ...inherited,
    HOME: home,
    HERMES_HOME: home,
    HERMES_MCP_ROOTS: home,
    TMPDIR: tmp,
    // Neither names a directory: the state directory is the default one under TMPDIR.
    XDG_RUNTIME_DIR: '',
    HERMES_MCP_STATE_DIR: '',
    HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(),
    HERMES_MCP_EXECUTE_CODE_CONCURRENCY: '1',
    ...env,
  });
  running.add(gateway);
  return { gateway, client: await connect(`${gateway.url}/mcp`, 'modern') };
}

/** The private directories in the state directory recorded as made by `pid`. */
function dirsOf(pid: number): string[] {
  return readdirSync(state)
    .filter((name) => /^(exec|zygote|terminal)-/.test(name) && readOwnerRecord(join(state, name))?.pid === pid)
    .sort();
}

/** An execute_code call and a terminal call of a session: an exec, a zygote and a terminal directory. */
async function work(client: Client): Promise<void> {
  const r = await viaBridge(client, 'execute_code', { code: 'print(6 * 7)' });
  assert.equal(r.data.status, 'success', JSON.stringify(r.data));
  const t = await viaBridge(client, 'terminal', { command: 'echo hello' }, await sessionToken(client));
  assert.equal(t.data.exit_code, 0, JSON.stringify(t.data));
}

/** Its directories once they stop changing: one exec (the prepared unit), one zygote, one terminal. */
async function settledDirsOf(pid: number): Promise<string[]> {
  let last = '';
  return waitFor(
    async () => {
      const now = dirsOf(pid);
      const key = now.join(' ');
      const kinds = now.map((name) => name.split('-')[0]).join(' ');
      const settled = key === last && kinds === 'exec terminal zygote' ? now : undefined;
      last = key;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return settled;
    },
    30_000,
    `gateway ${pid}'s exec, zygote and terminal directories`,
  );
}

test('a killed gateway\'s state directories are removed by the next gateway to start, never a live one\'s', async () => {
  const live = await start();
  const killed = await start();
  await work(live.client);
  await work(killed.client);
  assert.equal(statSync(state).mode & 0o777, 0o700, 'the default state directory under TMPDIR');
  const liveDirs = await settledDirsOf(live.gateway.pid);
  const killedDirs = await settledDirsOf(killed.gateway.pid);

  await killed.client.close().catch(() => {});
  process.kill(killed.gateway.pid, 'SIGKILL');
  const { code } = await killed.gateway.stop(); // only waits: it is already dead
  running.delete(killed.gateway);
  assert.equal(code, null, 'killed by the signal');
  // Nothing removes them: the gateway had no chance to.
  for (const name of killedDirs) assert.ok(existsSync(join(state, name)), `${name} stays after the kill`);

  // An older gateway's directory (no owner record), recent: not this start's to judge.
  mkdirSync(join(state, 'exec-Older1'), { mode: 0o700 });

  const next = await start({ HERMES_MCP_LOG_LEVEL: 'debug' });
  for (const name of killedDirs) assert.ok(!existsSync(join(state, name)), `${name} is removed once the next gateway started`);
  for (const name of liveDirs) assert.ok(existsSync(join(state, name)), `${name} of the live gateway is left alone`);
  assert.ok(existsSync(join(state, 'exec-Older1')), 'a recent directory without a record is left alone');

  // The live gateway works on, with the same zygote and terminal directories, and so does the new one.
  await work(live.client);
  await work(next.client);
  const liveAfter = dirsOf(live.gateway.pid);
  for (const name of liveDirs.filter((n) => !n.startsWith('exec-'))) assert.ok(liveAfter.includes(name), `${name} still in use`);
  assert.ok(dirsOf(next.gateway.pid).length > 0);

  await Promise.all([live.client.close(), next.client.close()]);
  const stopped = await next.gateway.stop();
  running.delete(next.gateway);
  const removed = stopped.logs.filter((l) => l.event === 'stale_state_dirs_removed');
  assert.equal(removed.length, 1, stopped.stderr);
  assert.equal(removed[0]!.level, 30, 'info');
  assert.equal(removed[0]!.count, killedDirs.length);
  assert.equal(removed[0]!.state_dir, state);
  // Each one at debug, with why.
  const each = stopped.logs.filter((l) => l.event === 'stale_state_dir_removed');
  assert.deepEqual(each.map((l) => l.name).sort(), killedDirs);
  for (const l of each) assert.equal(l.reason, `owner ${killed.gateway.pid} is gone`);
  // A stopped gateway removes its own.
  assert.deepEqual(dirsOf(next.gateway.pid), []);
});
