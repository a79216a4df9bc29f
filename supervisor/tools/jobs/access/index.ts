import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { Limits } from '../../../../shared/limits.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { denyError, type CommandVerdict, type GuardConfig } from '../../command-guards/index.js';
import type { JobRunner } from '../runner/index.js';
import type { JobDatabase } from '../store/index.js';

// The one way a job tool reaches the job store (or learns why there is none), the command guard's
// refusal of a job's command, and SQLite's write failures explained.

/** The job store the tools work on, or why there is none (the tools still exist, and say so). */
export type JobStore = { db: JobDatabase; runner: JobRunner } | { unavailable: string };

/** What every job tool is built with. */
export interface JobToolContext {
  /** Asked on every call: a database that could not open is tried again (jobs/index.ts). */
  store: () => JobStore;
  roots: readonly string[];
  limits: Limits;
  guard: GuardConfig;
  /** An owner's current directory, against which a relative workdir resolves. */
  cwdFor: (ownerId: string) => string;
}

/**
 * The open store. A frozen catalog does not change: without a database the tools are listed as
 * always and every call answers JOB_STORE_UNAVAILABLE, before anything else is looked at.
 */
export function openStore(ctx: JobToolContext): { db: JobDatabase; runner: JobRunner } {
  const current = ctx.store();
  if ('unavailable' in current) throw new GatewayError(ErrorCode.JOB_STORE_UNAVAILABLE, `jobs are unavailable: ${current.unavailable}`);
  return current;
}

/** A command the guard refuses for a job: COMMAND_BLOCKED (hardline) or COMMAND_DENIED (approvals.deny); `after` says what became of the job. */
export function refuseGuarded(verdict: CommandVerdict, after: string): void {
  if (verdict.verdict === 'deny') {
    const error = denyError(verdict);
    throw new GatewayError(error.code, `${error.message} (${after})`, error.details);
  }
  if (verdict.verdict === 'hardline') {
    throw new GatewayError(ErrorCode.COMMAND_BLOCKED, `BLOCKED: the command matches the hardline pattern "${verdict.key}" and is never run; ${after}`, { pattern_key: verdict.key });
  }
}

// SQLite's result codes for a store that cannot be written or read (full disk, read-only file
// system, I/O error): better-sqlite3 raises them as SqliteError with this `code`.
const STORE_FAILURE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)/;

/**
 * A job tool whose database write failed answers JOB_STORE_UNAVAILABLE with SQLite's reason (the
 * transaction rolled back, so nothing was recorded and nothing started), not an opaque internal
 * error: a full disk or a read-only home is the operator's to fix, and the caller may retry.
 */
export function storeFailuresExplained(tool: ToolDefinition): ToolDefinition {
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

export { JobStoreHandle } from './store-handle.js';
