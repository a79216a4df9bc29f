// Host admission: what the resource policy adds to a job's admission, the release of `unknown`
// jobs with evidence that nothing of them runs, and the operator's hermes-mcp-admission commands.

export { admissionRules, assertHeadroom, reservationFor } from './host.js';
export { JOB_SLICE, releaseUnknownJob } from './unknown-release.js';
export { drain, EXIT_FAILED, EXIT_USAGE, ownerToken, resume, runOnJobDatabase, snapshot, status, UsageError, type AdmissionRun } from './cli.js';
export { reconcile } from './reconcile.js';
export { admissionReport } from './report.js';
