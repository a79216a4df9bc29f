import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lutimesSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { processStartTime } from '../../../shared/proc.js';
import { makePrivateDir, OWNER_RECORD, ownOwnerRecord, readOwnerRecord, sweepStalePrivateDirs, type OwnerRecord, type SweepReport } from '../../../supervisor/platform/spawning/private-dirs.js';
import { tempDirs } from '../../helpers/temp.js';

// The rule by which a starting gateway removes the exec/zygote/terminal directories of gateways
// that are gone from the state directory they share: by the owner recorded in each (pid and start
// time, real processes here), by age and bound sockets for those with no record, and only for
// directories of this account, never through a symlink, never outside the expected names.

const dirs = tempDirs();
after(() => dirs.removeAll());

const DAY_MS = 86_400_000;
const AGE = { unrecordedMinAgeMs: DAY_MS };

function stateDir(): string {
  const root = dirs.make('hmcp-privdirs-');
  const state = join(root, 'state');
  mkdirSync(state, { mode: 0o700 });
  chmodSync(state, 0o700);
  return state;
}

/** A private directory as a gateway with `record` would have made it (none: an older gateway's). */
function privateDir(state: string, name: string, record?: OwnerRecord | string): string {
  const dir = join(state, name);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'cwd'), '/\n');
  if (record !== undefined) writeFileSync(join(dir, OWNER_RECORD), typeof record === 'string' ? record : JSON.stringify(record));
  return dir;
}

/** Sets the directory and its entries `ms` into the past (not followed through symlinks). */
function age(dir: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  for (const name of readdirSync(dir)) lutimesSync(join(dir, name), then, then);
  utimesSync(dir, then, then);
}

function verdict(report: SweepReport, name: string) {
  return report.verdicts.find((v) => v.name === name);
}

/** A process that lives until killed, with its start time. */
async function liveProcess(): Promise<{ pid: number; start: string; kill(): Promise<void> }> {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const start = processStartTime(child.pid!);
  assert.ok(start, 'the live process has a start time');
  return {
    pid: child.pid!,
    start,
    async kill() {
      process.kill(child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

test('a directory this process makes records it as the owner, and is kept while it lives', () => {
  const state = stateDir();
  const dir = makePrivateDir(state, 'exec');
  assert.match(dir, /\/exec-[A-Za-z0-9]{6}$/);
  const record = readOwnerRecord(dir);
  assert.deepEqual(record, ownOwnerRecord());
  assert.equal(record?.pid, process.pid);
  assert.equal(record?.start, processStartTime(process.pid));
  const report = sweepStalePrivateDirs(state, AGE);
  assert.deepEqual(report.verdicts, [{ name: dir.slice(state.length + 1), removed: false, reason: `owner ${process.pid} is alive` }]);
  assert.ok(existsSync(dir));
});

test('dead owner, reused pid, other boot: removed; a live owner with the same start time: kept', async () => {
  const state = stateDir();
  const self = ownOwnerRecord();
  const live = await liveProcess();
  const dead = await liveProcess();
  try {
    privateDir(state, 'exec-Live01', { ...self, pid: live.pid, start: live.start });
    await dead.kill();
    privateDir(state, 'zygote-Dead01', { ...self, pid: dead.pid, start: dead.start });
    // The live process's pid with another start time: the pid was reused by a process that is not the owner.
    privateDir(state, 'terminal-Reuse1', { ...self, pid: live.pid, start: String(Number(live.start) - 1) });
    privateDir(state, 'exec-Boot01', { ...self, pid: live.pid, start: live.start, boot: 'another-boot' });
    const report = sweepStalePrivateDirs(state, AGE);
    assert.deepEqual(verdict(report, 'exec-Live01'), { name: 'exec-Live01', removed: false, reason: `owner ${live.pid} is alive` });
    assert.equal(verdict(report, 'zygote-Dead01')?.removed, true);
    assert.match(verdict(report, 'zygote-Dead01')!.reason, new RegExp(`^owner ${dead.pid} is gone`));
    assert.deepEqual(verdict(report, 'terminal-Reuse1'), { name: 'terminal-Reuse1', removed: true, reason: `owner ${live.pid} is gone (its pid was reused)` });
    assert.deepEqual(verdict(report, 'exec-Boot01'), { name: 'exec-Boot01', removed: true, reason: `owner ${live.pid} ran before the last boot` });
    assert.deepEqual(readdirSync(state).sort(), ['exec-Live01']);
    // Once the owner dies, its directory goes too.
    await live.kill();
    assert.deepEqual(sweepStalePrivateDirs(state, AGE).verdicts, [{ name: 'exec-Live01', removed: true, reason: `owner ${live.pid} is gone` }]);
    assert.deepEqual(readdirSync(state), []);
  } finally {
    await live.kill().catch(() => {});
  }
});

test('no record: removed only once left alone for the configured age and no socket in it is bound', async () => {
  const state = stateDir();
  privateDir(state, 'exec-Young1');
  age(privateDir(state, 'exec-Old001'), 2 * DAY_MS);
  age(privateDir(state, 'zygote-Bad001', '{"pid":"not a number"}'), 2 * DAY_MS);
  // A pid from another pid namespace cannot be judged here: like no record.
  privateDir(state, 'terminal-OtherN', { ...ownOwnerRecord(), pidns: 'pid:[1]' });
  // A live unit socket of an older gateway: listening, however old the directory.
  const listening = privateDir(state, 'exec-Sock01');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(listening, 'hermes_rpc_x.sock'), resolve));
  try {
    age(listening, 2 * DAY_MS);
    const report = sweepStalePrivateDirs(state, AGE);
    assert.equal(verdict(report, 'exec-Young1')?.removed, false);
    assert.match(verdict(report, 'exec-Young1')!.reason, /^no owner record; changed \d+ s ago$/);
    assert.equal(verdict(report, 'exec-Old001')?.removed, true);
    assert.match(verdict(report, 'exec-Old001')!.reason, /^no owner record; unused for 1728\d\d s$/);
    assert.equal(verdict(report, 'zygote-Bad001')?.removed, true, 'an unreadable record is no record');
    assert.equal(verdict(report, 'terminal-OtherN')?.removed, false);
    assert.match(verdict(report, 'terminal-OtherN')!.reason, /another pid namespace; changed/);
    assert.deepEqual(verdict(report, 'exec-Sock01'), { name: 'exec-Sock01', removed: false, reason: 'no owner record; a socket in it is in use' });
    // The same directories a day later: the young one is now old enough.
    const later = sweepStalePrivateDirs(state, { ...AGE, now: Date.now() + 2 * DAY_MS });
    assert.equal(verdict(later, 'exec-Young1')?.removed, true);
    assert.equal(verdict(later, 'terminal-OtherN')?.removed, true);
    assert.equal(verdict(later, 'exec-Sock01')?.removed, false);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  // Closed: nothing is bound in it any more.
  age(listening, 2 * DAY_MS);
  assert.equal(verdict(sweepStalePrivateDirs(state, AGE), 'exec-Sock01')?.removed, true);
  assert.deepEqual(readdirSync(state), []);
});

test('symlinks and other names are never touched, nor followed', async () => {
  const state = stateDir();
  const outside = dirs.make('hmcp-privdirs-outside-');
  writeFileSync(join(outside, 'keep'), 'x');
  age(outside, 2 * DAY_MS);
  const dead = await liveProcess();
  await dead.kill();
  const deadRecord = JSON.stringify({ ...ownOwnerRecord(), pid: dead.pid, start: dead.start });
  writeFileSync(join(outside, OWNER_RECORD), deadRecord);
  symlinkSync(outside, join(state, 'exec-Link01'));
  // Names that are not a private directory's, however dead their owner.
  for (const name of ['exec-abc', 'exec-abcdefg', 'other-abcdef', 'hermes-tools-managed', 'exec-abc.ef']) privateDir(state, name, deadRecord);
  writeFileSync(join(state, 'zygote-File01'), deadRecord);
  // A dead owner's directory holding a symlink out: the link goes, what it points at stays.
  const holder = privateDir(state, 'terminal-Hold01', deadRecord);
  symlinkSync(outside, join(holder, 'escape'));
  // An owner record that is a symlink is no record (and the directory is young).
  const linked = privateDir(state, 'exec-RecLnk');
  symlinkSync(join(outside, OWNER_RECORD), join(linked, OWNER_RECORD));
  const report = sweepStalePrivateDirs(state, AGE);
  assert.deepEqual(
    report.verdicts.map((v) => [v.name, v.removed, v.reason]).sort(),
    [
      ['exec-Link01', false, 'a symbolic link'],
      ['exec-RecLnk', false, report.verdicts.find((v) => v.name === 'exec-RecLnk')!.reason],
      ['terminal-Hold01', true, `owner ${dead.pid} is gone`],
      ['zygote-File01', false, 'not a directory'],
    ],
  );
  assert.match(verdict(report, 'exec-RecLnk')!.reason, /^no owner record; changed/);
  assert.deepEqual(readdirSync(state).sort(), ['exec-Link01', 'exec-RecLnk', 'exec-abc', 'exec-abc.ef', 'exec-abcdefg', 'hermes-tools-managed', 'other-abcdef', 'zygote-File01']);
  assert.deepEqual(readdirSync(outside).sort(), [OWNER_RECORD, 'keep']);
});

test('a state directory that is not private to this account is not swept at all', async () => {
  const dead = await liveProcess();
  await dead.kill();
  const deadRecord = { ...ownOwnerRecord(), pid: dead.pid, start: dead.start };
  const writable = stateDir();
  privateDir(writable, 'exec-Dead01', deadRecord);
  chmodSync(writable, 0o777);
  assert.deepEqual(sweepStalePrivateDirs(writable, AGE), { skipped: `${writable} is writable by others (mode 777)`, verdicts: [] });
  assert.ok(existsSync(join(writable, 'exec-Dead01')));
  const real = stateDir();
  privateDir(real, 'exec-Dead01', deadRecord);
  const link = join(real, '..', 'link');
  symlinkSync(real, link);
  assert.deepEqual(sweepStalePrivateDirs(link, AGE), { skipped: `${link} is a symbolic link`, verdicts: [] });
  assert.ok(existsSync(join(real, 'exec-Dead01')));
  // The same directory, private: swept.
  assert.equal(verdict(sweepStalePrivateDirs(real, AGE), 'exec-Dead01')?.removed, true);
  assert.deepEqual(sweepStalePrivateDirs(join(real, 'missing'), AGE), { verdicts: [] });
});

test('directories of another uid are left alone', { skip: process.getuid?.() !== 0 && 'needs root to give a directory to another uid' }, async () => {
  const dead = await liveProcess();
  await dead.kill();
  const deadRecord = { ...ownOwnerRecord(), pid: dead.pid, start: dead.start };
  const state = stateDir();
  chownSync(privateDir(state, 'exec-Other1', deadRecord), 65534, 65534);
  assert.deepEqual(sweepStalePrivateDirs(state, AGE).verdicts, [{ name: 'exec-Other1', removed: false, reason: 'belongs to uid 65534' }]);
  const foreign = stateDir();
  privateDir(foreign, 'exec-Dead01', deadRecord);
  chownSync(foreign, 65534, 65534);
  assert.deepEqual(sweepStalePrivateDirs(foreign, AGE), { skipped: `${foreign} belongs to uid 65534, not ${process.getuid!()}`, verdicts: [] });
  assert.ok(existsSync(join(foreign, 'exec-Dead01')));
});
