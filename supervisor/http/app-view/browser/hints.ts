import type { ErrorCode } from '../../../../shared/errors.js';

// What to do next for the error codes a user most often meets in the view. The gateway's message
// says what happened; this says how to recover. Codes are the gateway's stable ones (checked by
// the compiler against the gateway's catalogue).
export const RECOVERY_HINTS: Partial<Record<ErrorCode, string>> = {
  STALE_TAB: 'The page changed or the tab was replaced: navigate again, then take a fresh snapshot.',
  BROWSER_NOT_NAVIGATED: 'Open a page with browser_navigate first.',
  BROWSER_REF_UNKNOWN: 'Take a fresh browser_snapshot and use one of its refs.',
  SESSION_TOKEN_INVALID: 'Open a new session with session_open and pass its token.',
  SESSION_TOKEN_EXPIRED: 'The session expired: open a new one with session_open.',
  SESSION_TOKEN_REVOKED: 'The session was closed: open a new one with session_open.',
  SESSION_TOKEN_FOREIGN: 'That session belongs to another connection: open your own with session_open.',
  OWNER_REQUIRED: 'This tool needs a session: call session_open and pass its token as session_token.',
  SCOPE_INSUFFICIENT: 'The connector was authorised without this permission: reconnect it and grant the scope.',
  PATH_OUTSIDE_ROOTS: 'Use a path inside the allowed roots.',
  FILE_NOT_FOUND: 'Check the path (search_files finds files by name).',
  PATCH_NO_MATCH: 'Read the file again and copy the exact text to replace.',
  PATCH_AMBIGUOUS: 'Include more surrounding lines so the text matches once.',
  LONG_RUNNING_OPERATION_REQUIRES_JOB: 'Run it as a background job: job_prepare, then job_start.',
  JOB_NOT_FOUND: 'Check the job_id and recovery_token saved when the job was prepared.',
  JOB_EXPIRED: 'The prepared job expired before it started: prepare it again.',
  JOB_WORKSPACE_BUSY: 'Another job runs in this workspace: wait for it, or use a separate worktree.',
  JOB_QUOTA_EXCEEDED: 'Too many jobs are running: wait for one to finish.',
  JOB_SESSION_QUOTA_EXCEEDED: 'This session runs as many jobs as it may: wait for one to finish.',
  COMMAND_BLOCKED: 'This command is never run through the gateway.',
  COMMAND_DENIED: "The operator's approvals.deny rules in Hermes' config.yaml refuse this command; only they can change that.",
};
