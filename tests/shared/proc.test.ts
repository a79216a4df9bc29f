import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  childrenOf,
  descendantsOf,
  memAvailableBytes,
  numericDirs,
  processesTagged,
  processIsAlive,
  processStartTime,
  signalName,
  signalTree,
  statFields,
  WORKER_TAG_VAR,
  zombieChildrenOf,
} from '../../shared/proc.js';
import { tempDirs } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// The /proc readers, against real processes this test starts (and kills by pid).

const temp = tempDirs();
const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) signalTree(child.pid);
  temp.removeAll();
});

/** A shell that starts `sleep` children and waits; its own process group so signalTree can reach it. */
function shell(script: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn('/bin/sh', ['-c', script], { stdio: 'ignore', detached: true, env });
  started.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

test('numericDirs lists only the all-digit names, and nothing for a missing directory', () => {
  const dir = temp.make('proc-');
  for (const name of ['12', '007', 'abc', '1a', 'self']) mkdirSync(join(dir, name));
  writeFileSync(join(dir, '42'), '');
  assert.deepEqual(numericDirs(dir).sort((a, b) => a - b), [7, 12, 42]);
  assert.deepEqual(numericDirs(join(dir, 'missing')), []);
  assert.ok(numericDirs('/proc').includes(process.pid));
});

test('childrenOf and descendantsOf walk the children lists of every task', async () => {
  const root = shell('sleep 30 & (sleep 30 & wait) & wait');
  const pid = root.pid!;
  const kids = await waitFor(() => (childrenOf(pid).length === 2 ? childrenOf(pid) : undefined), 5000, 'two children');
  const all = await waitFor(() => (descendantsOf(pid).length === 3 ? descendantsOf(pid) : undefined), 5000, 'three descendants');
  for (const kid of kids) assert.ok(all.includes(kid));
  assert.ok(!all.includes(pid));
  assert.deepEqual(childrenOf(0x3fffffff), []);
  assert.deepEqual(descendantsOf(0x3fffffff), []);
  signalTree(pid);
  await exited(root);
});

test('statFields starts at the state, processStartTime is field 22, and both are undefined for a gone pid', () => {
  const fields = statFields(process.pid)!;
  assert.match(fields[0]!, /^[RS]$/);
  assert.equal(Number(fields[1]), process.ppid);
  const start = processStartTime(process.pid)!;
  assert.match(start, /^\d+$/);
  assert.equal(fields[19], start);
  assert.equal(statFields(0x3fffffff), undefined);
  assert.equal(processStartTime(0x3fffffff), undefined);
  assert.equal(processIsAlive(process.pid, start), true);
  assert.equal(processIsAlive(process.pid, String(Number(start) + 1)), false, 'a reused pid has another start time');
  assert.equal(processIsAlive(0x3fffffff, start), false);
});

test('statFields cuts the command name even when it holds spaces and parentheses', async () => {
  // A script named with both is its shell's command name while the shell waits for sleep.
  const dir = temp.make('proc-name-');
  const odd = join(dir, 'a) (b c');
  writeFileSync(odd, '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
  const child = spawn(odd, [], { stdio: 'ignore', detached: true });
  started.push(child);
  const fields = await waitFor(() => {
    const f = statFields(child.pid!);
    return f && f[0] === 'S' && childrenOf(child.pid!).length === 1 ? f : undefined;
  }, 5000, 'sleeping');
  assert.match(readFileSync(`/proc/${child.pid!}/stat`, 'utf8'), /^\d+ \(a\) \(b c\) S /);
  assert.equal(Number(fields[1]), process.pid);
  signalTree(child.pid!);
  await exited(child);
});

test('zombieChildrenOf reports exited, unwaited children with their start time', async () => {
  // The shell execs into sleep, so its short-lived child is never waited for and stays a zombie.
  const root = shell('sh -c "exit 0" & exec sleep 30');
  const pid = root.pid!;
  const zombies = await waitFor(() => (zombieChildrenOf(pid).length === 1 ? zombieChildrenOf(pid) : undefined), 5000, 'one zombie');
  const [zombie] = zombies;
  assert.equal(statFields(zombie!.pid)![0], 'Z');
  assert.match(zombie!.startTime, /^\d+$/);
  assert.equal(processStartTime(zombie!.pid), undefined, 'a zombie has no start time as a live process');
  assert.equal(processIsAlive(zombie!.pid, zombie!.startTime), false);
  assert.deepEqual(zombieChildrenOf(process.pid).filter((z) => z.pid === pid), []);
  signalTree(pid);
  await exited(root);
});

test('processesTagged finds the processes whose environment carries the tag, never this one', async () => {
  const tag = `proc-test-${process.pid}-${Date.now()}`;
  const root = shell('sleep 30 & wait', { ...process.env, [WORKER_TAG_VAR]: tag });
  const pid = root.pid!;
  const tagged = await waitFor(() => (processesTagged(tag).length === 2 ? processesTagged(tag) : undefined), 5000, 'two tagged');
  assert.ok(tagged.includes(pid));
  assert.deepEqual(processesTagged(`${tag}-other`), []);
  assert.equal(WORKER_TAG_VAR, 'HERMES_MCP_WORKER_TAG');
  signalTree(pid);
  await exited(root);
  await waitFor(() => processesTagged(tag).length === 0 || undefined, 5000, 'tagged gone');
});

test('signalTree signals the process group and the process, and ignores a gone pid', async () => {
  const root = shell('sleep 30 & wait');
  const pid = root.pid!;
  const [kid] = await waitFor(() => (childrenOf(pid).length === 1 ? childrenOf(pid) : undefined), 5000, 'child');
  const kidStart = processStartTime(kid!)!;
  signalTree(pid, 'SIGTERM');
  await exited(root);
  assert.equal(root.signalCode, 'SIGTERM');
  await waitFor(() => !processIsAlive(kid!, kidStart) || undefined, 5000, 'group member gone');
  signalTree(pid);
});

test('memAvailableBytes reads MemAvailable in bytes', () => {
  const bytes = memAvailableBytes();
  assert.ok(bytes !== undefined && bytes > 0 && bytes % 1024 === 0, String(bytes));
});

test('signalName maps a signal number to its name', () => {
  assert.equal(signalName(9), 'SIGKILL');
  assert.equal(signalName(15), 'SIGTERM');
  assert.equal(signalName(2), 'SIGINT');
  assert.equal(signalName(0), undefined);
  assert.equal(signalName(999), undefined);
});
