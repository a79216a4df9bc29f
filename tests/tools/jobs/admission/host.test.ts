import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, isGatewayError } from '../../../../shared/errors.js';
import { defaultLimits } from '../../../../shared/limits.js';
import { memAvailableBytes } from '../../../../shared/proc.js';
import type { ResourcePolicy } from '../../../../policy/resource-policy.js';
import type { ResourceState } from '../../../../supervisor/platform/spawning/resource-policy.js';
import { admissionRules, assertHeadroom, reservationFor } from '../../../../supervisor/tools/jobs/admission/host.js';

// What an enforced host resource policy adds to admission; development mode adds nothing.

const GiB = 1024 ** 3;
const policy = (headroom: string): ResourcePolicy => ({
  version: 1,
  profiles: { light: { memory_max: '2G', cpu_quota: '100%', tasks_max: 512 }, heavy: { memory_max: '8G', cpu_quota: '200%', tasks_max: 4096 } },
  short_workers: { memory_max: '1G', cpu_quota: '100%', tasks_max: 256 },
  jobs: { memory_budget: '12G', host_headroom: headroom, max_heavy: 1 },
});
const enforced = (headroom = '2G'): ResourceState => ({ mode: 'enforced', policy: policy(headroom), enforcement: 'systemd', reason: 'test' });
const development: ResourceState = { mode: 'development', enforcement: 'none', reason: 'test' };
const limits = { ...defaultLimits(), maxActiveJobs: 7, maxActiveJobsPerSession: 3 };

test("an enforced policy reserves each profile's memory_max; development mode reserves nothing", () => {
  assert.equal(reservationFor(enforced(), 'light'), 2 * GiB);
  assert.equal(reservationFor(enforced(), 'heavy'), 8 * GiB);
  assert.equal(reservationFor(development, 'heavy'), 0);
  assert.equal(reservationFor({ ...enforced(), mode: 'failed' }, 'heavy'), 0, 'only an enforced policy counts');
});

test('admission rules: the counts from the limits, one-heavy and the memory budget from an enforced policy', () => {
  const rules = admissionRules(enforced(), limits);
  assert.equal(rules.maxActive, 7);
  assert.equal(rules.maxPerSession, 3);
  assert.equal(rules.maxHeavy, 1);
  assert.equal(rules.memoryBudget, 12 * GiB);
  assert.equal(rules.reservationFor!('heavy'), 8 * GiB);
  const dev = admissionRules(development, limits);
  assert.deepEqual([dev.maxActive, dev.maxPerSession, dev.maxHeavy, dev.memoryBudget, dev.reservationFor!('heavy')], [7, 3, Infinity, Infinity, 0]);
});

test('headroom: nothing to check in development mode; enough MemAvailable passes', () => {
  assert.doesNotThrow(() => assertHeadroom(development, Number.MAX_SAFE_INTEGER));
  assert.doesNotThrow(() => assertHeadroom(enforced('1'), 0), 'one byte of headroom and no reservation fits any host');
});

test('headroom: a job the host cannot cover is JOB_MEMORY_UNAVAILABLE, naming the bytes', (t) => {
  const available = memAvailableBytes();
  if (available === undefined) return t.skip('no /proc/meminfo here');
  assert.throws(
    () => assertHeadroom(enforced('1T'), 8 * GiB),
    (e: unknown) => isGatewayError(e) && e.code === ErrorCode.JOB_MEMORY_UNAVAILABLE && /needs 8589934592 plus 1099511627776 bytes of host headroom/.test(e.message) && /resource_profile "light"/.test(e.message),
  );
});
