import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { gatewayMain, launch, parsePort } from '../../bench/launch.js';
import { stopChild } from '../../bench/measure.js';
import { packageRoot } from '../../shared/package-root.js';
import { cronFixtureDir } from '../fixtures/cron-home.js';
import { killSurvivors, newMarker, survivors } from '../helpers/escapees.js';
import { hermes } from '../helpers/hermes.js';
import { connect, optionalComponents, sessionToken, viaBridge } from '../helpers/gateway.js';

// A full disk and a read-only Hermes home, for real: root ignores chmod, so the home (job
// database, its exit records, cron/jobs.json) is a private 8 MiB tmpfs that only the gateway bin
// sees, mounted in its own mount namespace (`unshare -m`). The test fills it through
// /proc/<pid>/root (ENOSPC), or remounts it read-only with nsenter (EROFS, which root cannot
// bypass). Admission then fails closed with a reason, nothing half-written is left (no job row,
// no cron temp file, jobs.json byte for byte as before), nothing starts, and once the fault is
// gone the same gateway serves again. Skipped where mount namespaces are not allowed.

const canMount = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs tmpfs /mnt'], { stdio: 'ignore' }).status === 0;
const home = mkdtempSync(join(tmpdir(), 'hmcp-disk-'));
const state = mkdtempSync(join(tmpdir(), 'hmcp-disk-state-'));
const markers: string[] = [];
let gw: Gw;
/** The tmpfs as the test sees it: through the gateway's own mount namespace. */
const inside = (...parts: string[]) => join(`/proc/${gw.child.pid}/root`, home, ...parts);

interface Gw {
  child: ChildProcess;
  client: Client;
  token: string;
}
const gateways: Gw[] = [];

/** The gateway bin with `home` a fresh tmpfs in its own mount namespace (read-only from the start when asked). */
async function startGateway(readOnly: boolean): Promise<Gw> {
  const ro = readOnly ? ' && mount -o remount,ro "$H"' : '';
  // The tmpfs is mounted over `home` and populated before the gateway starts (exec keeps the pid).
  const script = `mount -t tmpfs -o size=8m,mode=0700 tmpfs "$H" && printf '# Soul\\n' > "$H/SOUL.md" && mkdir "$H/w" && cp -a "$CRON" "$H/cron"${ro} && exec "$GW"`;
  const env = { H: home, CRON: cronFixtureDir(), GW: gatewayMain, HERMES_HOME: home, HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: join(home, 'w'), HERMES_MCP_STATE_DIR: state, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents(), HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_AGENT_PYTHON: hermes().python };
  const { child, port } = await launch('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], env, (l) => parsePort(l, 'listening'), 'stderr');
  const client = await connect(`http://127.0.0.1:${port}/mcp`, 'modern');
  // DEBUG_DISK=1 shows the gateway's log (why a call failed inside it).
  child.stderr!.on('data', (d: Buffer) => void (process.env.DEBUG_DISK && process.stdout.write(d)));
  const gw = { child, client, token: await sessionToken(client) };
  gateways.push(gw);
  return gw;
}

after(async () => {
  for (const gw of gateways) {
    await gw.client.close().catch(() => {});
    await stopChild(gw.child);
  }
  for (const m of markers) killSurvivors(m);
  rmSync(home, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => viaBridge(gw.client, name, args, gw.token);
function admission(): { counts: Record<string, number> } {
  // Run in the gateway's mount namespace: the operator CLI (rightly) refuses a path through /proc/<pid>/root, a symlink.
  const cli = [process.execPath, join(packageRoot(), 'dist', 'bin', 'admission.js'), 'status', '--json', '--database', join(home, 'gateway-jobs.sqlite3')];
  const r = spawnSync('nsenter', ['-t', String(gw.child.pid), '-m', ...cli], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { counts: Record<string, number> };
}
/** Temp files a cron write left behind (Hermes' own empty cron/output/ directory is not one). */
const cronFiles = () => readdirSync(inside('cron')).filter((f) => f.endsWith('.tmp')).sort();

/** Fills the tmpfs to the last byte; returns the filler's path (delete it to free the disk). */
function fillDisk(): string {
  const filler = inside('filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    closeSync(fd);
  }
  return filler;
}

const skip = canMount ? false : 'mount namespaces (unshare -m) are not allowed here';
const STORE_REFUSED = 'JOB_STORE_UNAVAILABLE';

test('disk full (ENOSPC): job admission and cron writes fail closed with a reason, nothing half-written, and the gateway recovers', { skip }, async () => {
  gw = await startGateway(false);
  const marker = newMarker();
  markers.push(marker);
  const prepared = await call('job_prepare', { command: `exec -a ${marker} sleep 30`, workdir: join(home, 'w') });
  assert.equal(prepared.isError, false, JSON.stringify(prepared.data));
  const job = { job_id: prepared.data.job_id as string, recovery_token: prepared.data.recovery_token as string };
  const countsBefore = admission().counts;
  const cronBefore = readFileSync(inside('cron', 'jobs.json'));
  const cronListing = cronFiles();

  const filler = fillDisk();
  try {
    const start = await call('job_start', job);
    assert.equal(start.data.error, STORE_REFUSED, `admission must fail closed with a reason: ${JSON.stringify(start.data)}`);
    assert.match(String(start.data.message), /SQLITE_FULL/);
    assert.deepEqual(survivors(marker), [], 'nothing started');
    const prepare = await call('job_prepare', { command: 'true', workdir: join(home, 'w') });
    assert.equal(prepare.data.error, STORE_REFUSED, JSON.stringify(prepare.data));
    const cron = await call('cronjob', { action: 'create', prompt: 'Check the otters', schedule: 'every 30m', confirm: true });
    assert.equal(cron.isError, true, JSON.stringify(cron.data));
    assert.match(String(cron.data.message), /ENOSPC|no space/i, JSON.stringify(cron.data));
  } finally {
    unlinkSync(filler);
  }
  assert.deepEqual(readFileSync(inside('cron', 'jobs.json')), cronBefore, 'jobs.json untouched');
  assert.deepEqual(cronFiles(), cronListing, 'no temp file left in cron/');
  assert.deepEqual(admission().counts, countsBefore, 'no job row written by the refused calls');
  // The same gateway serves again once the disk has room: the refused start left the job prepared.
  assert.equal((await call('job_status', job)).data.state, 'prepared');
  const started = await call('job_start', job);
  assert.equal(started.data.state, 'running', JSON.stringify(started.data));
  assert.equal((await call('job_cancel', job)).data.state, 'cancelled');
});

test('read-only home (EROFS, which root cannot bypass): jobs and cron writes refused with the reason, nothing written', { skip }, async () => {
  gw = await startGateway(true);
  const cronBefore = readFileSync(inside('cron', 'jobs.json'));
  const cronListing = cronFiles();
  const prepare = await call('job_prepare', { command: 'true', workdir: join(home, 'w') });
  assert.equal(prepare.data.error, STORE_REFUSED, JSON.stringify(prepare.data));
  assert.match(String(prepare.data.message), /read-only|EROFS|readonly/i, JSON.stringify(prepare.data));
  const cron = await call('cronjob', { action: 'create', prompt: 'Check the otters', schedule: 'every 30m', confirm: true });
  assert.equal(cron.isError, true, JSON.stringify(cron.data));
  assert.match(String(cron.data.message), /read-only|EROFS/i, JSON.stringify(cron.data));
  assert.deepEqual(readFileSync(inside('cron', 'jobs.json')), cronBefore, 'jobs.json untouched');
  assert.deepEqual(cronFiles(), cronListing, 'no temp file left in cron/');
  assert.equal(readdirSync(inside()).includes('gateway-jobs.sqlite3'), false, 'no job database file was created');
});
