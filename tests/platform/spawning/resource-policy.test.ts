import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import {
  assertCanStartWork,
  loadResourceState,
  probeCgroupRoot,
  readResourcePolicy,
  shortWorkerLimits,
  startRefusal,
  type ResourceState,
} from '../../../supervisor/platform/spawning/resource-policy.js';
import { makeFakeSystemdRun } from '../../helpers/fake-systemd-run.js';
import { resourcePolicy, SHORT, writeResourcePolicy } from '../../helpers/resource-policy.js';
import { tempDirs } from '../../helpers/temp.js';

// Never the real systemd-run: the probe runs the fake (tests/helpers/fake-systemd-run.ts) or finds none.

const temp = tempDirs();
after(() => temp.removeAll());

const invalid = (message: string) => (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.RESOURCE_POLICY_INVALID && e.message === message;

test('a valid policy file is read with its defaults filled in', () => {
  const dir = temp.make('hmcp-policy-');
  const { max_heavy: _dropped, ...jobs } = resourcePolicy().jobs;
  const path = writeResourcePolicy(dir, { ...resourcePolicy(), jobs });
  assert.deepEqual(readResourcePolicy(path), { ...resourcePolicy(), jobs: { ...jobs, max_heavy: 1 } });
});

test('a missing, non-regular, world-writable, unparsable or off-schema policy is RESOURCE_POLICY_INVALID saying why', () => {
  const dir = temp.make('hmcp-policy-');
  const missing = join(dir, 'none.json');
  assert.throws(() => readResourcePolicy(missing), invalid(`resource policy ${missing}: missing`));
  assert.throws(() => readResourcePolicy(dir), invalid(`resource policy ${dir}: not a regular file`));
  const open = writeResourcePolicy(temp.make('hmcp-policy-'), resourcePolicy(), 0o666);
  assert.throws(() => readResourcePolicy(open), invalid(`resource policy ${open}: world-writable (mode 666); chmod o-w it`));
  const garbage = writeResourcePolicy(temp.make('hmcp-policy-'), '{ not json');
  assert.throws(() => readResourcePolicy(garbage), (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.RESOURCE_POLICY_INVALID && e.message.startsWith(`resource policy ${garbage}: invalid JSON: `));
  const wrong = writeResourcePolicy(temp.make('hmcp-policy-'), { ...resourcePolicy(), version: 2, short_workers: { ...SHORT, memory_max: '1.5G' } });
  assert.throws(
    () => readResourcePolicy(wrong),
    (e: unknown) => e instanceof GatewayError && e.code === ErrorCode.RESOURCE_POLICY_INVALID && /^resource policy .*: does not match the schema \(policy\/resource-policy\.ts\): version: .*; short_workers\.memory_max: a size like "512M"/.test(e.message),
  );
});

test('an unreadable policy (no read permission) is invalid, unreadable', { skip: process.getuid?.() === 0 ? 'root reads any file' : false }, () => {
  const path = writeResourcePolicy(temp.make('hmcp-policy-'), resourcePolicy(), 0o200);
  assert.throws(() => readResourcePolicy(path), invalid(`resource policy ${path}: unreadable (EACCES)`));
});

/** A directory laid out like a delegated cgroup v2 directory. */
function fakeCgroup(options: { controllers?: string; procs?: string } = {}): string {
  const root = temp.make('hmcp-cgroot-');
  writeFileSync(join(root, 'cgroup.controllers'), options.controllers ?? 'cpuset cpu io memory pids\n');
  writeFileSync(join(root, 'cgroup.procs'), options.procs ?? '');
  writeFileSync(join(root, 'cgroup.subtree_control'), '');
  return root;
}

test('probeCgroupRoot accepts only an empty, writable cgroup v2 directory with the memory, pids and cpu controllers', () => {
  assert.deepEqual(probeCgroupRoot(undefined), { ok: false, reason: 'no delegated cgroup v2 directory configured (HERMES_MCP_CGROUP_ROOT)' });
  const plain = temp.make('hmcp-cgroot-');
  assert.deepEqual(probeCgroupRoot(plain), { ok: false, reason: `${plain} is not a cgroup v2 directory` });
  const busy = fakeCgroup({ procs: '1234\n' });
  assert.deepEqual(probeCgroupRoot(busy), { ok: false, reason: `cgroup ${busy} has member processes; delegate an empty one` });
  const partial = fakeCgroup({ controllers: 'cpu io\n' });
  assert.deepEqual(probeCgroupRoot(partial), { ok: false, reason: `cgroup ${partial} lacks the memory, pids controller(s)` });
  const good = fakeCgroup();
  assert.deepEqual(probeCgroupRoot(good), { ok: true, reason: `direct cgroup v2 limits under ${good}` });
  const noProcs = temp.make('hmcp-cgroot-');
  writeFileSync(join(noProcs, 'cgroup.controllers'), 'cpu memory pids');
  mkdirSync(join(noProcs, 'cgroup.procs'));
  assert.deepEqual(probeCgroupRoot(noProcs), { ok: false, reason: `cgroup ${noProcs} cannot be read` });
});

test('probeCgroupRoot: a read-only subtree_control is not writable', { skip: process.getuid?.() === 0 ? 'root writes any file' : false }, () => {
  const root = fakeCgroup();
  chmodSync(join(root, 'cgroup.subtree_control'), 0o444);
  assert.deepEqual(probeCgroupRoot(root), { ok: false, reason: `cgroup ${root} is not writable` });
});

test('loadResourceState: unset is development mode; a bad file is failed with the reading\'s reason', () => {
  assert.deepEqual(loadResourceState(undefined, {}), { mode: 'development', enforcement: 'none', reason: 'HERMES_MCP_RESOURCE_POLICY unset: development mode, no resource limits enforced' });
  assert.deepEqual(loadResourceState('', {}).mode, 'development');
  const missing = join(temp.make('hmcp-policy-'), 'none.json');
  assert.deepEqual(loadResourceState(missing, {}), { mode: 'failed', path: missing, enforcement: 'none', reason: `resource policy ${missing}: missing` });
});

test('loadResourceState: a user manager answering means systemd scopes', () => {
  const path = writeResourcePolicy(temp.make('hmcp-policy-'));
  const fake = makeFakeSystemdRun(temp.make('hmcp-fake-systemd-'));
  const state = loadResourceState(path, { PATH: fake.path }, fakeCgroup());
  assert.deepEqual(state, { mode: 'enforced', path, policy: resourcePolicy(), enforcement: 'systemd', reason: 'transient user scopes via systemd-run --user --scope' });
  assert.deepEqual(fake.calls(), [['--user', '--scope', '--quiet', '--collect', 'true']]);
});

test('loadResourceState: no user manager but a delegated cgroup means direct cgroups, its controllers enabled', () => {
  const path = writeResourcePolicy(temp.make('hmcp-policy-'));
  const fake = makeFakeSystemdRun(temp.make('hmcp-fake-systemd-'), { fail: true });
  const root = fakeCgroup();
  assert.deepEqual(loadResourceState(path, { PATH: fake.path }, root), {
    mode: 'enforced',
    path,
    policy: resourcePolicy(),
    enforcement: 'cgroup',
    cgroupRoot: root,
    reason: `no systemd user manager reachable: Failed to connect to bus: No medium found; direct cgroup v2 limits under ${root}`,
  });
  assert.equal(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8'), '+memory +pids +cpu');
});

test('loadResourceState: neither means enforced with no enforcement, and work is refused UNENFORCEABLE', () => {
  const path = writeResourcePolicy(temp.make('hmcp-policy-'));
  const noSystemdRun = temp.make('hmcp-empty-path-');
  const state = loadResourceState(path, { PATH: noSystemdRun });
  assert.deepEqual(state, {
    mode: 'enforced',
    path,
    policy: resourcePolicy(),
    enforcement: 'none',
    reason: 'resource policy cannot be enforced here: systemd-run not found (ENOENT); no delegated cgroup v2 directory configured (HERMES_MCP_CGROUP_ROOT)',
  });
  const refusal = startRefusal(state, 'job');
  assert.ok(refusal instanceof GatewayError);
  assert.equal(refusal.code, ErrorCode.RESOURCE_POLICY_UNENFORCEABLE);
  assert.equal(refusal.message, `job refused: ${state.reason}`);
  assert.throws(() => assertCanStartWork(state, 'execute_code'), { code: ErrorCode.RESOURCE_POLICY_UNENFORCEABLE, message: `execute_code refused: ${state.reason}` });
  assert.deepEqual(shortWorkerLimits(state), SHORT, 'enforced, even if it cannot be here: the limits are the policy\'s');
});

test('startRefusal, assertCanStartWork and shortWorkerLimits per mode', () => {
  const development: ResourceState = { mode: 'development', enforcement: 'none', reason: 'dev' };
  const failed: ResourceState = { mode: 'failed', enforcement: 'none', reason: 'resource policy /p: missing' };
  const enforced: ResourceState = { mode: 'enforced', enforcement: 'cgroup', policy: resourcePolicy() as ResourceState['policy'], reason: 'ok' };
  assert.equal(startRefusal(development, 'job'), undefined);
  assert.equal(startRefusal(enforced, 'job'), undefined);
  assertCanStartWork(enforced, 'job');
  assert.throws(() => assertCanStartWork(failed, 'job'), { code: ErrorCode.RESOURCE_POLICY_INVALID, message: 'job refused: resource policy /p: missing' });
  assert.equal(shortWorkerLimits(development), undefined);
  assert.equal(shortWorkerLimits(failed), undefined);
  assert.deepEqual(shortWorkerLimits(enforced), SHORT);
});
