import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { Limits } from '../../../../shared/limits.js';
import { DEFAULT_RESOURCE_PROFILE, RESOURCE_PROFILES, type ResourceProfile } from '../../../../policy/resource-policy.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { resolveWorkdirInsideRoots } from '../../../platform/roots.js';
import { assertCanStartWork } from '../../../platform/spawning/resource-policy.js';
import { checkCommand, commandContext } from '../../command-guards/index.js';
import { terminalSizeProperties } from '../../processes/process-manage/index.js';
import { openStore, refuseGuarded, type JobToolContext } from '../access/index.js';
import { prepareJob } from '../store/index.js';

// job_prepare: freezes a command as a job and hands out its one-time recovery token; runs nothing.
// It needs an interactive session (a capability token or a legacy MCP session): the job's later
// calls authorize by that token alone.

const COMMAND_MAX_CHARS = 65_536;

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

/** job_prepare's workdir as a real directory inside the roots (a relative one against the owner's current directory). */
async function jobWorkdir(requested: string, cwd: string, roots: readonly string[]): Promise<string> {
  const workdir = await resolveWorkdirInsideRoots(requested, cwd, roots);
  if (!(await stat(workdir)).isDirectory()) throw new GatewayError(ErrorCode.PATH_OUTSIDE_ROOTS, `workdir is not a directory: ${requested}`);
  return workdir;
}

export function jobPrepareTool(ctx: JobToolContext): ToolDefinition {
  const { limits } = ctx;
  return {
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
    async handler(args, call) {
      const { db, runner } = openStore(ctx);
      assertCanStartWork(runner.resources, 'job_prepare');
      const command = args.command as string;
      if (command.trim() === '') throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'command is empty');
      const terminal = terminalFor(args, limits);
      const requested = args.workdir as string;
      const cwd = ctx.cwdFor(call.owner.id);
      refuseGuarded(checkCommand(command, commandContext(ctx.guard, resolve(cwd, requested))), 'nothing was prepared');
      const workdir = await jobWorkdir(requested, cwd, ctx.roots);
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
          preparedBy: call.owner.id,
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
}
