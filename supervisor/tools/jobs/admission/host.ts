import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { Limits } from '../../../../shared/limits.js';
import { memAvailableBytes } from '../../../../shared/proc.js';
import { sizeBytes, type ResourceProfile } from '../../../../policy/resource-policy.js';
import type { ResourceState } from '../../../platform/spawning/resource-policy.js';
import type { AdmissionRules } from '../store/index.js';

// What the host resource policy in force adds to job admission: the memory a profile reserves,
// the one-heavy and memory-budget rules, and the host headroom check made just before the admission
// transaction. One-heavy admission and memory reservations are host protections: they apply when
// the policy is enforced; development mode keeps only the count and workspace quotas.

function enforcedPolicy(resources: ResourceState) {
  return resources.mode === 'enforced' ? resources.policy : undefined;
}

/** The memory a job of this profile reserves (0 in development mode). */
export function reservationFor(resources: ResourceState, profile: ResourceProfile): number {
  const policy = enforcedPolicy(resources);
  return policy ? sizeBytes(policy.profiles[profile].memory_max) : 0;
}

export function admissionRules(resources: ResourceState, limits: Limits): AdmissionRules {
  const policy = enforcedPolicy(resources);
  return {
    // The policy in force at admission decides the reservation, not the one at preparation.
    reservationFor: (profile) => reservationFor(resources, profile as ResourceProfile),
    maxActive: limits.maxActiveJobs,
    maxPerSession: limits.maxActiveJobsPerSession,
    maxHeavy: policy ? policy.jobs.max_heavy : Infinity,
    memoryBudget: policy ? sizeBytes(policy.jobs.memory_budget) : Infinity,
  };
}

/** Host headroom: MemAvailable must cover the job's memory_max plus the policy's headroom. */
export function assertHeadroom(resources: ResourceState, reservation: number): void {
  const policy = enforcedPolicy(resources);
  if (!policy) return;
  const headroom = sizeBytes(policy.jobs.host_headroom);
  const available = memAvailableBytes();
  if (available !== undefined && available < reservation + headroom) {
    throw new GatewayError(
      ErrorCode.JOB_MEMORY_UNAVAILABLE,
      `the host has ${available} bytes available; this job needs ${reservation} plus ${headroom} bytes of host headroom. Nothing was started; try again later or use resource_profile "light"`,
    );
  }
}
