import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { hermesArgumentRepair } from '../../../core/hermes-args.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import type { GatewayConfig } from '../../../platform/config.js';
import { HERMES_CHANGES, type HermesRelease } from '../../../platform/hermes/release.js';
import { cpuTask, runOnCpuPool } from '../../../platform/thread-pool/pool.js';
import { sessionSearchDescription, sessionSearchInputSchema } from './schema.js';
import type { SearchArgs, SessionSearchChange, TaskInput } from './args.js';
import type sessionSearchTask from './task.js';
import type { TaskResult } from './task.js';

// session_search — the guarded, read-only adapter over Hermes' session database
// ($HERMES_HOME/state.db). Hermes' own tool is an agent-loop tool (it needs the live agent's db
// handle), so the gateway re-implements it: the parameters of the Hermes it fronts minus the
// cross-profile `profile` override (its schema is built once, for that Hermes: Hermes 0.22's
// `detail`, `after`, `before` and `exclude_session_ids` only where it has them), the same four
// result shapes and defaults (see shapes.ts), read through better-sqlite3 opened
// read-only on a thread of the supervisor's CPU pool (platform/thread-pool/pool.ts) running task.ts,
// never migrating or writing the database. The database is read by what it holds, whatever its
// schema version (store-open.ts); a missing database, and one without the columns
// the reader needs, are stable errors.
// Its description and schema: schema.ts; its /readyz component: readiness.ts.

export { sessionDbReadiness } from './readiness.js';

/** Reads of Hermes' state use a 30-second budget, like every Hermes-backed read of the gateway. */
const DEADLINE_MS = 30_000;
/** Room left under the gateway's output cap for its own envelope. */
const ENVELOPE_RESERVE_CHARS = 1024;

/** The session_search changes `release` has (every one for a Hermes of unknown version). */
export function sessionSearchChanges(release: HermesRelease): SessionSearchChange[] {
  return (Object.keys(HERMES_CHANGES) as Array<keyof typeof HERMES_CHANGES>).filter(
    (name): name is SessionSearchChange => name.startsWith('session_search_') && release.has(name),
  );
}

const SEARCH = cpuTask<typeof sessionSearchTask>(new URL('./task.js', import.meta.url));

/** The Hermes profile a HERMES_HOME is: `<root>/profiles/<name>` is `<name>`, anything else `default`. */
function profileNameOf(hermesHome: string): string {
  return basename(dirname(hermesHome)) === 'profiles' ? basename(hermesHome) : 'default';
}

function errorCodeOf(code: string): ErrorCode {
  return (Object.values(ErrorCode) as string[]).includes(code) ? (code as ErrorCode) : ErrorCode.INTERNAL_ERROR;
}

/** `release`: the Hermes whose session_search the tool answers as (its parameters, fields and routes). */
export function sessionSearchTools(config: GatewayConfig, log: Logger, release: HermesRelease): ToolDefinition[] {
  const dbPath = join(config.hermesHome, 'state.db');
  const profile = profileNameOf(config.hermesHome);
  const budgetChars = Math.max(1024, config.limits.maxOutputChars - ENVELOPE_RESERVE_CHARS);
  const changes = sessionSearchChanges(release);
  const followed = new Set(changes);
  const schema = sessionSearchInputSchema(followed);
  return [
    {
      name: 'session_search',
      description: sessionSearchDescription(followed),
      inputSchema: schema as unknown as ToolDefinition['inputSchema'],
      // Hermes' dispatch coercion ("5" for limit) before the schema; Hermes' function clamps.
      coerceArguments: hermesArgumentRepair(schema),
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'Search past Hermes sessions' },
      requiresOwner: false,
      async handler(args, ctx) {
        const input: TaskInput = { dbPath, args: args as SearchArgs, budgetChars, profile, changes };
        const deadline = AbortSignal.timeout(DEADLINE_MS);
        let result: TaskResult;
        try {
          result = await runOnCpuPool(SEARCH, input, AbortSignal.any([ctx.signal, deadline]));
        } catch (e) {
          if (ctx.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'session_search was cancelled; its read was stopped');
          if (deadline.aborted) {
            log.warn({ event: 'session_search_timeout', deadline_ms: DEADLINE_MS }, 'session_search exceeded its deadline');
            throw new GatewayError(
              ErrorCode.SESSION_SEARCH_TIMEOUT,
              `session_search did not finish within ${DEADLINE_MS / 1000}s and was stopped; narrow the query (more specific terms, a quoted phrase) and try again`,
            );
          }
          if ((e as Error)?.message === 'Task queue is at limit') {
            throw new GatewayError(ErrorCode.BUSY, 'too many session_search calls are waiting; try again shortly');
          }
          throw e;
        }
        // Hermes answers its failures as tool_error(..., success=False): the flag travels with the code.
        if (!result.ok) throw new GatewayError(errorCodeOf(result.code), result.message, { success: false, ...result.details });
        return { structured: result.payload };
      },
    },
  ];
}
