import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CgroupLimit, enableCgroupControllers } from '../../../supervisor/platform/spawning/cgroup-limits.js';
import { tempDirs } from '../../helpers/temp.js';

// A plain directory stands for the delegated cgroup v2 tree: the class only makes directories and
// writes the kernel's interface files, so what it writes is what the kernel would be told.

const temp = tempDirs();
after(() => temp.removeAll());

test('a unit gets its own child directory with memory.max in bytes, pids.max and cpu.max over a 100 ms period', () => {
  const root = temp.make('hmcp-cgroup-');
  const limit = new CgroupLimit(root, 'job-1', { memory_max: '512M', cpu_quota: '150%', tasks_max: 64 });
  assert.equal(limit.dir, join(root, 'job-1'));
  assert.equal(readFileSync(join(limit.dir, 'memory.max'), 'utf8'), String(512 * 1024 * 1024));
  assert.equal(readFileSync(join(limit.dir, 'pids.max'), 'utf8'), '64');
  assert.equal(readFileSync(join(limit.dir, 'cpu.max'), 'utf8'), '150000 100000');
  const other = new CgroupLimit(root, 'job-2', { memory_max: '2G', cpu_quota: '5%', tasks_max: 1 });
  assert.equal(readFileSync(join(other.dir, 'memory.max'), 'utf8'), String(2 * 1024 ** 3));
  assert.equal(readFileSync(join(other.dir, 'cpu.max'), 'utf8'), '5000 100000');
});

test('adopt writes the pid into cgroup.procs', () => {
  const root = temp.make('hmcp-cgroup-');
  const limit = new CgroupLimit(root, 'job', { memory_max: '1024', cpu_quota: '100%', tasks_max: 8 });
  assert.equal(readFileSync(join(limit.dir, 'memory.max'), 'utf8'), '1024');
  limit.adopt(4242);
  assert.equal(readFileSync(join(limit.dir, 'cgroup.procs'), 'utf8'), '4242');
});

test('an existing unit directory is refused: two units never share a cgroup', () => {
  const root = temp.make('hmcp-cgroup-');
  mkdirSync(join(root, 'taken'));
  assert.throws(() => new CgroupLimit(root, 'taken', { memory_max: '1M', cpu_quota: '100%', tasks_max: 8 }), { code: 'EEXIST' });
});

test('a limit that cannot be written removes the directory it made: no half-limited cgroup is left', () => {
  const root = temp.make('hmcp-cgroup-');
  assert.throws(() => new CgroupLimit(root, 'bad', { memory_max: 'lots', cpu_quota: '100%', tasks_max: 8 }), /not a size: lots/);
  assert.deepEqual(readdirSync(root), []);
});

test('remove deletes an emptied cgroup, and keeps one still populated without throwing', () => {
  const root = temp.make('hmcp-cgroup-');
  const limit = new CgroupLimit(root, 'job', { memory_max: '1M', cpu_quota: '100%', tasks_max: 8 });
  limit.remove();
  assert.deepEqual(readdirSync(limit.dir).sort(), ['cpu.max', 'memory.max', 'pids.max'], 'still populated: kept');
  for (const f of readdirSync(limit.dir)) rmSync(join(limit.dir, f));
  limit.remove();
  assert.equal(existsSync(limit.dir), false);
  limit.remove();
  assert.equal(existsSync(limit.dir), false, 'already gone: nothing to do');
});

test('enableCgroupControllers asks for the memory, pids and cpu controllers, and ignores a refusal', () => {
  const root = temp.make('hmcp-cgroup-');
  enableCgroupControllers(root);
  assert.equal(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8'), '+memory +pids +cpu');
  const unwritable = join(root, 'no-such-dir');
  enableCgroupControllers(unwritable);
  assert.equal(existsSync(unwritable), false);
});
