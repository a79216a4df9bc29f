// The job store: one SQLite database shared by every gateway process and the operator CLI. The
// runner, the job tools, the adapter and hermes-mcp-admission reach it through this file.

export { assertSafePath, openJobDatabase, openJobDatabaseAsIs, SCHEMA_VERSION, type JobDatabase } from './database.js';
export { activeJobs, getJob, hashSecret, isFinal, jobCounts, stmt, type Instance, type JobRow, type JobState } from './rows.js';
export { admitJob, authorizedJob, nestedPaths, prepareJob, type AdmissionRules } from './admission.js';
export { cancelPrepared, cancelRequestsFor, finishJob, markRunning, recordOutput, recordTerminalSize, requestCancel, sweepJobs, type Completion, type ReceiptOutput } from './receipts.js';
export { gateState, liveSignalPauses, OWNER_TOKEN_PATTERN, pauseAdmission, recordSignalPause, resumeAdmission } from './gate.js';
export { JobChanges } from './job-changes.js';
