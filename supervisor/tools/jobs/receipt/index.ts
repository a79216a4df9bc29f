import type { ToolOutcome } from '../../../core/tool-types.js';
import type { JobRow } from '../store/index.js';

// A job's credential, as the tools that take it declare it, and the receipt they answer with.

export const JOB_ID = { type: 'string', pattern: '^job_[0-9a-f]{24}$', description: 'The job_id job_prepare returned.' };
export const TOKEN = { type: 'string', minLength: 20, maxLength: 128, description: 'The one-time recovery_token job_prepare returned (kept private, outside Git).' };

/** A job tool's answer: the receipt, and its output tail's colours for the result view when it has any. */
export function jobOutcome(row: JobRow): ToolOutcome {
  return { structured: jobView(row), ...(row.output_styled !== null ? { styled: { output_tail: row.output_styled } } : {}) };
}

/** The receipt a client sees: never the command, the token or its hash. */
function jobView(row: JobRow): Record<string, unknown> {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    job_id: row.id,
    state: row.state,
    workdir: row.workdir,
    resource_profile: row.profile,
    max_runtime: row.max_runtime,
    created_at: iso(row.created_at),
    ...(row.state === 'prepared' ? { expires_at: iso(row.expires_at) } : {}),
    started_at: iso(row.started_at),
    deadline_at: iso(row.deadline_at),
    finished_at: iso(row.finished_at),
    exit_code: row.exit_code,
    signal: row.signal,
    termination_reason: row.termination_reason,
    cancel_requested: row.cancel_requested === 1,
    tty: row.pty === 1,
    // The window as it is now: prepared with it, or resized since (process_manage, job_input).
    ...(row.pty === 1 ? { terminal: { cols: row.pty_cols, rows: row.pty_rows } } : {}),
    output_tail: row.output_tail,
    output_bytes: row.output_bytes,
    // Receipts older than the flag: whether the byte count passes what the tail holds.
    output_truncated: row.output_truncated === null ? row.output_bytes > Buffer.byteLength(row.output_tail) : row.output_truncated === 1,
  };
}
