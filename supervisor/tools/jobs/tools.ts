import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkCommand, commandContext, denyError, type CommandVerdict, type GuardConfig } from '../command-guards/index.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { resolveWorkdirInsideRoots } from '../../platform/roots.js';
import type { Limits } from '../../../shared/limits.js';
import type { ToolDefinition, ToolOutcome } from '../../core/tool-types.js';
import { DEFAULT_RESOURCE_PROFILE, RESOURCE_PROFILES, type ResourceProfile } from '../../../policy/resource-policy.js';
import { prepareJob, type JobRow } from './job-repository.js';
import { assertCanStartWork } from '../../platform/spawning/resource-policy.js';
import type { JobRunner } from './runner.js';
import type { JobDatabase } from './database.js';
import { INPUT_ACTIONS, inputProperties, sendInput, terminalSizeProperties, type InputAction } from '../processes/process-manage/index.js';

// The deferred job tools. prepare/start need an interactive session (a capability token or a
// legacy MCP session); status/cancel/input authorize by the job credential alone, so recovery works
// from any new connection even after the session that started the job has expired — including
// answering a PTY job's prompt (job_input), which process_manage could only do for that session.

const JOB_ID = { type: 'string', pattern: '^job_[0-9a-f]{24}$', description: 'The job_id job_prepare returned.' };
const TOKEN = { type: 'string', minLength: 20, maxLength: 128, description: 'The one-time recovery_token job_prepare returned (kept private, outside Git).' };
const COMMAND_MAX_CHARS = 65_536;

/** A job tool's answer: the receipt, and its output tail's colours for the result view when it has any. */
function jobOutcome(row: JobRow): ToolOutcome {
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

/** The window size of a PTY job; cols/rows without pty: true are a mistake worth saying so. */
function terminalFor(args: Record<string, unknown>, limits: Limits): { cols: number; rows: number } | undefined {
  const cols = args.cols as number | undefined;
  const rows = args.rows as number | undefined;
  if (args.pty !== true) {
    if (cols !== undefined || rows !== undefined) throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'cols and rows size a terminal: they need pty: true');
    return undefined;
  }
  // The default is checked against the maximum at load; capped here too, so limits given some other
  // way (embedding, tests) cannot make a window the schema would refuse.
  return { cols: cols ?? Math.min(limits.ptyDefaultCols, limits.ptyMaxCols), rows: rows ?? Math.min(limits.ptyDefaultRows, limits.ptyMaxRows) };
}

/** The job store the tools work on, or why there is none (the tools still exist, and say so). */
export type JobStore = { db: JobDatabase; runner: JobRunner } | { unavailable: string };

/** `store` is asked on every call: a database that could not open is tried again (supervisor/tools/jobs/index.ts). */
/** A command the guard refuses for a job: COMMAND_BLOCKED (hardline) or COMMAND_DENIED (approvals.deny); `after` says what became of the job. */
function refuseGuarded(verdict: CommandVerdict, after: string): void {
  if (verdict.verdict === 'deny') {
    const error = denyError(verdict);
    throw new GatewayError(error.code, `${error.message} (${after})`, error.details);
  }
  if (verdict.verdict === 'hardline') {
    throw new GatewayError(ErrorCode.COMMAND_BLOCKED, `BLOCKED: the command matches the hardline pattern "${verdict.key}" and is never run; ${after}`, { pattern_key: verdict.key });
  }
}

/** job_prepare's workdir as a real directory inside the roots (a relative one against the owner's current directory). */
async function jobWorkdir(requested: string, cwd: string, roots: readonly string[]): Promise<string> {
  const workdir = await resolveWorkdirInsideRoots(requested, cwd, roots);
  if (!(await stat(workdir)).isDirectory()) throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `workdir is not a directory: ${requested}`);
  return workdir;
}

export function jobTools(store: () => JobStore, roots: readonly string[], limits: Limits, guard: GuardConfig, cwdFor: (ownerId: string) => string): ToolDefinition[] {
  // A frozen catalog does not change: without a database the tools are listed as always and every
  // call answers JOB_STORE_UNAVAILABLE, before anything else is looked at.
  const open = (): { db: JobDatabase; runner: JobRunner } => {
    const current = store();
    if ('unavailable' in current) throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `jobs are unavailable: ${current.unavailable}`);
    return current;
  };
  const jobPrepare: ToolDefinition = {
    name: 'job_prepare',
    description:
      `Freeze a long command (build, test suite) as a resumable background job. Runs NOTHING: returns job_id and a one-time recovery_token — save both in a private owner-only file outside Git before calling job_start; never put the token in logs, memory or chat. workdir must be inside the allowed roots; one active job per workspace (use a git worktree per job). pty: true runs it on a terminal (cols×rows, default ${limits.ptyDefaultCols}×${limits.ptyDefaultRows}) for prompts, REPLs and tools that need a TTY: answer through process_manage write/submit, resize there too; its output is rendered to plain text. max_runtime 1-${limits.jobMaxRuntimeSeconds} s (default ${limits.jobDefaultRuntimeSeconds}). A repeated idempotency_key returns the earlier job_id and state, never its token. Needs session_token.`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, maxLength: COMMAND_MAX_CHARS },
        workdir: { type: 'string', minLength: 1, maxLength: 4096, description: "Directory inside HERMES_MCP_ROOTS; a relative one resolves against the session's current directory (the terminal's)." },
        max_runtime: { type: 'integer', minimum: 1, maximum: limits.jobMaxRuntimeSeconds },
        idempotency_key: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9._~:-]+$', description: 'A fresh random key per request (16-128 characters).' },
        resource_profile: { type: 'string', enum: [...RESOURCE_PROFILES], description: `Host-defined limits; default ${DEFAULT_RESOURCE_PROFILE}.` },
        pty: { type: 'boolean', description: 'Run the command on a pseudo-terminal (default false).' },
        ...terminalSizeProperties(limits),
      },
      required: ['command', 'workdir'],
      additionalProperties: false,
    },
    // Destructive: this is the call that shows the command, so the host's confirmation happens here.
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: true },
    requiresOwner: true,
    async handler(args, ctx) {
      const { db, runner } = open();
      assertCanStartWork(runner.resources, 'job_prepare');
      const command = args.command as string;
      if (command.trim() === '') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'command is empty');
      const terminal = terminalFor(args, limits);
      const requested = args.workdir as string;
      const cwd = cwdFor(ctx.owner.id);
      refuseGuarded(checkCommand(command, commandContext(guard, resolve(cwd, requested))), 'nothing was prepared');
      const workdir = await jobWorkdir(requested, cwd, roots);
      const profile = ((args.resource_profile as ResourceProfile | undefined) ?? DEFAULT_RESOURCE_PROFILE) as ResourceProfile;
      const result = prepareJob(
        db,
        {
          command,
          workdir,
          maxRuntime: (args.max_runtime as number | undefined) ?? limits.jobDefaultRuntimeSeconds,
          profile,
          heavy: profile === 'heavy',
          memoryReservation: runner.reservationFor(profile),
          ...(typeof args.idempotency_key === 'string' ? { idempotencyKey: args.idempotency_key } : {}),
          preparedBy: ctx.owner.id,
          ...(terminal ? { terminal } : {}),
        },
        { maxPrepared: limits.maxPreparedJobs, ttlMs: limits.jobPrepareTtlSeconds * 1000 },
        runner.now(),
      );
      return {
        structured: result.duplicate
          ? { job_id: result.job_id, state: result.state, duplicate: true, note: 'this idempotency_key was already prepared: use the recovery_token saved then (it is never returned again)' }
          : { job_id: result.job_id, state: result.state, recovery_token: result.recovery_token, duplicate: false, expires_in_seconds: limits.jobPrepareTtlSeconds },
      };
    },
  };

  const jobStart: ToolDefinition = {
    name: 'job_start',
    description:
      `Start exactly the request job_prepare froze (no command or workdir here). Admission is atomic: at most ${limits.maxActiveJobs} active jobs on the host, ${limits.maxActiveJobsPerSession} per session, one per workspace (same or nested directories), host resource limits; a full quota or busy workspace is an error, never a queue. If the answer is lost, call job_status with the same credential — repeating job_start never relaunches. Needs session_token.`,
    inputSchema: { type: 'object', properties: { job_id: JOB_ID, recovery_token: TOKEN }, required: ['job_id', 'recovery_token'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: true },
    requiresOwner: true,
    holdsLease: true,
    async handler(args, ctx) {
      const { runner } = open();
      // Judged again at the start: the operator's approvals.deny rules may have changed since the
      // job was prepared (and a job prepared by an earlier gateway met an earlier guard).
      const guardStart = (job: JobRow) => refuseGuarded(checkCommand(job.command ?? '', commandContext(guard, job.workdir)), 'the job was not started and stays prepared');
      return jobOutcome(await runner.start(args.job_id as string, args.recovery_token as string, ctx.owner.id, guardStart));
    },
  };

  const jobStatus: ToolDefinition = {
    name: 'job_status',
    description: `A job's state and receipt (exit code, signal, termination reason, timestamps, redacted output tail). Authorized by the job credential alone. wait_seconds (at most ${limits.jobStatusMaxWaitSeconds}) waits for a state change instead of polling in a tight loop. States: prepared, starting, running, succeeded, failed, cancelled, timed_out, expired, unknown.`,
    inputSchema: {
      type: 'object',
      properties: { job_id: JOB_ID, recovery_token: TOKEN, wait_seconds: { type: 'integer', minimum: 0, maximum: limits.jobStatusMaxWaitSeconds } },
      required: ['job_id', 'recovery_token'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
    credentialAuthorized: true,
    async handler(args, ctx) {
      const { runner } = open();
      return jobOutcome(await runner.status(args.job_id as string, args.recovery_token as string, (args.wait_seconds as number | undefined) ?? 0, ctx.signal));
    },
  };

  const jobCancel: ToolDefinition = {
    name: 'job_cancel',
    description:
      'Cancel a job by its credential: a prepared job never runs; a running one gets SIGTERM, then SIGKILL of its whole process tree after the grace period. An `unknown` job is released only after verifying no process of it remains (it becomes cancelled, never succeeded).',
    inputSchema: { type: 'object', properties: { job_id: JOB_ID, recovery_token: TOKEN }, required: ['job_id', 'recovery_token'], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: true },
    credentialAuthorized: true,
    async handler(args) {
      const { runner } = open();
      return jobOutcome(await runner.cancel(args.job_id as string, args.recovery_token as string));
    },
  };

  // A tool of its own rather than a credential mode of process_manage: process_manage is owner-scoped
  // (a session's processes, by proc_ id) and needs a live session; this one is authorized like
  // job_status, by the credential alone, and shares process_manage's input actions (sendInput).
  const jobInput: ToolDefinition = {
    name: 'job_input',
    description:
      'Send input to a running job by its credential, from any connection (the session that started it may be gone): write or submit (submit presses Enter) text to its stdin or terminal, close (end of input; ^D on a terminal), resize a PTY job\'s window (cols/rows). What is written is never logged. Read the answer with job_status.',
    inputSchema: {
      type: 'object',
      properties: { job_id: JOB_ID, recovery_token: TOKEN, action: { type: 'string', enum: [...INPUT_ACTIONS] }, ...inputProperties(limits) },
      required: ['job_id', 'recovery_token', 'action'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: false },
    credentialAuthorized: true,
    async handler(args) {
      const { runner } = open();
      const proc = runner.runningProcess(args.job_id as string, args.recovery_token as string);
      return { structured: { job_id: args.job_id, ...sendInput(proc, args.action as InputAction, args) } };
    },
  };

  return [jobPrepare, jobStart, jobStatus, jobCancel, jobInput].map(storeFailuresExplained);
}

// SQLite's result codes for a store that cannot be written or read (full disk, read-only file
// system, I/O error): better-sqlite3 raises them as SqliteError with this `code`.
const STORE_FAILURE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)/;

/**
 * A job tool whose database write failed answers JOB_STORE_UNAVAILABLE with SQLite's reason (the
 * transaction rolled back, so nothing was recorded and nothing started), not an opaque internal
 * error: a full disk or a read-only home is the operator's to fix, and the caller may retry.
 */
function storeFailuresExplained(tool: ToolDefinition): ToolDefinition {
  const handler = tool.handler;
  return {
    ...tool,
    async handler(args, ctx) {
      try {
        return await handler(args, ctx);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (typeof code !== 'string' || !STORE_FAILURE.test(code)) throw e;
        throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `the job database could not be written (${code}: ${(e as Error).message}); nothing was recorded or started, retry once the disk is writable`);
      }
    },
  };
}
