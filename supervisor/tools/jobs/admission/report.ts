import type { Limits } from '../../../../shared/limits.js';
import type { ResourceState } from '../../../platform/spawning/resource-policy.js';
import { gateState, jobCounts, type JobDatabase } from '../store/index.js';

// /readyz.job_admission: whether fresh jobs can start on this gateway process, and every reason
// they cannot. It is reported beside control-plane readiness, never inside it: a resource outage
// or a paused gate rejects new jobs without making /readyz fail (which would send the tunnel into a
// reconnect loop).

export interface AdmissionFacts {
  resources: ResourceState;
  limits: Limits;
  db?: JobDatabase;
  /** The runner on this gateway process: its signal pause and the jobs it runs. */
  runner?: { readonly signalPaused: boolean; readonly activeLocal: number };
  /** Why the job store is not open. */
  storeError?: string;
  /** The operator's admission command, as the advice names it. */
  admissionCommand: string;
}

export function admissionReport(facts: AdmissionFacts): Record<string, unknown> {
  const { resources, limits, db, runner, storeError } = facts;
  const resourceReady = resources.mode === 'development' || (resources.mode === 'enforced' && resources.enforcement !== 'none');
  const gate = db ? gateState(db) : undefined;
  // Unknown jobs keep their capacity until released; once they hold every slot, no job can start
  // until the operator reconciles them (their credential holders may be long gone).
  const unknownJobs = db ? (jobCounts(db).unknown ?? 0) : 0;
  const slotsHeld = unknownJobs >= limits.maxActiveJobs;
  const reasons = [
    ...(storeError ? [storeError] : []),
    ...(resourceReady ? [] : [resources.reason]),
    ...(gate?.paused ? [`paused by the operator${gate.reason ? ` (${gate.reason})` : ''}`] : []),
    ...(runner?.signalPaused ? ['paused by the local operator signal (SIGUSR1)'] : []),
    ...(slotsHeld ? [`${unknownJobs} unknown jobs hold all ${limits.maxActiveJobs} job slots`] : []),
  ];
  return {
    accepting: reasons.length === 0,
    resource_mode: resources.mode,
    enforcement: resources.enforcement,
    resource_reason: resources.reason,
    ...(resources.path ? { policy: resources.path } : {}),
    store: storeError ? 'unavailable' : 'ok',
    paused: gate?.paused ?? false,
    signal_paused: runner?.signalPaused ?? false,
    active_jobs_here: runner?.activeLocal ?? 0,
    unknown_jobs: unknownJobs,
    ...(unknownJobs > 0 ? unknownJobsAdvice(unknownJobs, limits.maxActiveJobs, facts.admissionCommand) : {}),
    ...(reasons.length > 0 ? { reasons } : {}),
  };
}

/** What /readyz.job_admission says while unknown jobs hold capacity: why, and the command that frees it. */
function unknownJobsAdvice(count: number, maxActive: number, admission: string): Record<string, string> {
  return {
    unknown_jobs_reason: `${count} job(s) are unknown (their gateway was killed) and hold ${count} of ${maxActive} job slots and their workspaces until released`,
    unknown_jobs_action: `${admission} reconcile (lists them; changes nothing), then ${admission} reconcile --apply (kills what remains of each, records it cancelled); job_cancel with a recovery token releases one too`,
  };
}
