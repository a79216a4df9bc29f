import { resolve } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { hermesArgumentRepair } from '../../../core/hermes-args.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import type { HermesChangeName, HermesRelease } from '../../../platform/hermes/release.js';
import { resolveWorkdirInsideRoots } from '../../../platform/roots.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';
import { commandGuard, denyError } from '../../command-guards/index.js';
import { foregroundBackgroundGuidance, foregroundOutcome, type ReleaseFeatures } from './foreground.js';
import type { TerminalPool } from './pool.js';

export { foregroundBackgroundGuidance, foregroundOutcome, type ForegroundContext } from './foreground.js';
export { TerminalPool } from './pool.js';

// Direct `terminal`: short foreground commands only (the execution guard: at most 30 s, no
// background, PTY or notification options; longer work is a job), run in the owner's terminal
// worker (pool.ts), where cwd and exported variables persist between calls like Hermes'
// terminal. Anything long, backgrounded, PTY or notification-shaped fails before execution and
// points to jobs. The result is Hermes' (foregroundOutcome); its redaction is the pipeline's.
// Schema, refusals and result follow the Hermes the gateway fronts (HermesRelease): 0.19's
// notify_on_complete/watch_patterns, or the newer notify/heartbeat/persist_on_release, the `cwd`
// and `hint` fields and a per-call workdir, each answered once when the tool is made (decidedFeatures).

const LONG_WORK_REFUSED = `${ErrorCode.LONG_RUNNING_OPERATION_REQUIRES_JOB}, before anything runs`;
const USE_A_JOB = 'For long or background work use a job: session_open, job_prepare(command, workdir), job_start, then job_status.';

/**
 * terminal's input schema for the Hermes followed: Hermes' own properties (TERMINAL_SCHEMA: names,
 * types, minimums, defaults), each described by what the gateway does with it. Hermes' field
 * names are kept so Hermes-shaped calls validate and get the refusal that says what to do, instead
 * of a schema error; each refused field says so in its description. From Hermes' notify
 * parameters on, notify_on_complete and watch_patterns stay as the legacy aliases Hermes still
 * accepts, and a foreground heartbeat is accepted and ignored, as Hermes does (upstream #119196).
 */
export function terminalSchema(release: HermesRelease, maxTimeout: number): ToolDefinition['inputSchema'] {
  const notifyParameters = release.has('terminal-notify-parameters');
  const legacy = notifyParameters ? ' A legacy alias of notify, accepted like it.' : '';
  const notificationProperties: Record<string, unknown> = {
    ...(notifyParameters
      ? {
          notify: {
            anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
            description: `Refused when true or a non-empty list of patterns (${LONG_WORK_REFUSED}): nothing is delivered to the client later, and output is not watched. ${USE_A_JOB} job_status(wait_seconds) waits for the end and shows the output tail. false or [] runs the command.`,
          },
          heartbeat: {
            type: 'integer',
            minimum: 0,
            default: 0,
            description: 'Accepted and ignored: it only applies to background processes, and direct terminal runs the command in the foreground (as Hermes drops it from a foreground call).',
          },
        }
      : {}),
    notify_on_complete: {
      type: 'boolean',
      default: false,
      description: `Refused when true (${LONG_WORK_REFUSED}): nothing is delivered to the client later. ${USE_A_JOB} job_status(wait_seconds) waits for the end.${legacy}`,
    },
    watch_patterns: {
      type: 'array',
      items: { type: 'string' },
      description: `Refused when non-empty (${LONG_WORK_REFUSED}): output is not watched in the background. ${USE_A_JOB} job_status shows its output tail.${legacy}`,
    },
    ...(release.has('terminal-persist-on-release')
      ? {
          persist_on_release: {
            type: 'boolean',
            default: false,
            description: `Refused when true (${LONG_WORK_REFUSED}): a foreground command ends with its call. A job already outlives the session that started it. ${USE_A_JOB}`,
          },
        }
      : {}),
  };
  const workdir = release.has('terminal-workdir-transient')
    ? "Directory to run this command in (inside the allowed roots); default the session's current directory, which a workdir does not change."
    : "Directory to run in (inside the allowed roots); default the session's current directory.";
  return {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, maxLength: 65536, description: "The shell command, run in bash in the session's cwd." },
      background: {
        type: 'boolean',
        default: false,
        description: `Refused when true (${LONG_WORK_REFUSED}): direct terminal never backgrounds a command. ${USE_A_JOB}`,
      },
      timeout: {
        type: 'integer',
        minimum: 1,
        description: `Seconds before the command is killed (exit code 124); default and maximum ${maxTimeout}. A larger value is refused (${LONG_WORK_REFUSED}), never turned into a background process. ${USE_A_JOB}`,
      },
      workdir: { type: 'string', minLength: 1, maxLength: 4096, description: workdir },
      pty: {
        type: 'boolean',
        default: false,
        description: `Refused when true (${LONG_WORK_REFUSED}): there is no pseudo-terminal, so interactive programs cannot run here; pass their input non-interactively (flags, a here-document). ${USE_A_JOB}`,
      },
      ...notificationProperties,
    },
    required: ['command'],
    additionalProperties: false,
  };
}

/** What a call asks for that direct terminal refuses before anything runs (empty: nothing). */
function refusedArguments(args: Record<string, unknown>, release: ReleaseFeatures, maxTimeout: number): string[] {
  const truthyList = (v: unknown) => Array.isArray(v) && v.length > 0;
  const reasons: string[] = [];
  if (args.background === true) reasons.push('background=true');
  if (args.pty === true) reasons.push('pty=true');
  if (release.has('terminal-notify-parameters') && (args.notify === true || truthyList(args.notify))) reasons.push('notify');
  if (args.notify_on_complete === true) reasons.push('notify_on_complete');
  if (truthyList(args.watch_patterns)) reasons.push('watch_patterns');
  if (release.has('terminal-persist-on-release') && args.persist_on_release === true) reasons.push('persist_on_release=true');
  if (typeof args.timeout === 'number' && args.timeout > maxTimeout) reasons.push(`timeout=${args.timeout} (direct terminal allows at most ${maxTimeout} s)`);
  return reasons;
}

/** The release features a terminal call reads. */
const CALL_FEATURES: readonly HermesChangeName[] = ['terminal-workdir-transient', 'terminal-result-cwd', 'terminal-agent-environment', 'terminal-failure-hints', 'terminal-heredoc-masking', 'terminal-notify-parameters', 'terminal-persist-on-release'];

/** The Hermes followed never changes while the gateway runs: what a call reads of it is answered once, when the tool is made. */
function decidedFeatures(release: HermesRelease): ReleaseFeatures {
  const on = new Set(CALL_FEATURES.filter((name) => release.has(name)));
  return { has: (name) => on.has(name) };
}

export function terminalTool(pool: TerminalPool, runtime: WorkerRuntime, release: HermesRelease): ToolDefinition {
  const { limits, roots } = { limits: runtime.config.limits, roots: runtime.config.roots };
  const maxTimeout = limits.terminalMaxTimeoutSeconds;
  const features = decidedFeatures(release);
  const transientWorkdir = features.has('terminal-workdir-transient');
  // A broken policy/dangerous-commands.json fails startup, not the first command.
  const guard = commandGuard(runtime.config);
  const inputSchema = terminalSchema(release, maxTimeout);
  const cwdNote = features.has('terminal-result-cwd') ? ' When a command changes directory, the result\'s cwd says where it ended.' : '';
  return {
    name: 'terminal',
    description: `Run a short foreground shell command (at most ${maxTimeout} s; timeout=${maxTimeout} when omitted) on the Hermes host. cwd and exported variables persist per session (session_token or MCP session).${cwdNote} Background, PTY, notification options or longer timeouts are refused: use job_prepare/job_start for builds, tests and deploys, or execute_code with hermes_tools.terminal for independent pipelines.`,
    inputSchema,
    // Hermes' dispatch coercion ("60" for timeout, "false" for background) before the schema.
    coerceArguments: hermesArgumentRepair(inputSchema),
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
    requiresOwner: true,
    holdsLease: true,
    // Its output as Hermes' redact_terminal_output shows it (the ENV pass only for a command that prints the environment).
    redaction: 'command-output',
    async handler(args, ctx) {
      const command = args.command as string;
      // The approval guard: a hardline command never runs, whatever else the call asks for.
      // Dangerous-but-not-hardline commands (git reset --hard, chmod 777, …) do run here: this is
      // a write tool, and the ChatGPT host asks the user to confirm its calls, which is the
      // approval Hermes would have asked for. (Inside execute_code there is no such prompt, so
      // hermes_tools.terminal denies them; see execute-code.ts.) The operator's approvals.deny
      // rules refuse a command whatever else is configured (COMMAND_DENIED).
      // A relative workdir is where `cd` would go from the session's current directory.
      const cwd = pool.cwdOf(ctx.owner.id);
      const requestedWorkdir = typeof args.workdir === 'string' ? resolve(cwd, args.workdir) : undefined;
      const verdict = guard.check(command, requestedWorkdir);
      if (verdict.verdict === 'deny') throw denyError(verdict);
      if (verdict.verdict === 'hardline') {
        throw new GatewayError(
          ErrorCode.COMMAND_BLOCKED,
          `BLOCKED (hardline): ${verdict.key}. This command is on the unconditional blocklist and is refused before execution; it cannot run through this gateway. Do not retry or rephrase it; if it is really needed, the user has to run it outside the agent.`,
          { pattern_key: verdict.key },
        );
      }
      // The Execution Guard: every refusal happens before anything runs. (heartbeat is never
      // refused: on a foreground call it means nothing, and Hermes drops it.)
      const reasons = refusedArguments(args, features, maxTimeout);
      if (reasons.length > 0) {
        throw new GatewayError(
          ErrorCode.LONG_RUNNING_OPERATION_REQUIRES_JOB,
          `direct terminal runs short foreground commands only; refused before execution: ${reasons.join(', ')}. Use job_prepare + job_start (with a session_token) for long or background work.`,
        );
      }
      const guidance = foregroundBackgroundGuidance(command, features);
      if (guidance) {
        // Hermes' refusal shape (output, exit_code -1, status "error") under the gateway's code.
        throw new GatewayError(ErrorCode.LONG_RUNNING_OPERATION_REQUIRES_JOB, guidance, { output: '', exit_code: -1, status: 'error' });
      }
      if (runtime.config.resourcePolicy) {
        throw new GatewayError(
          ErrorCode.RESOURCE_ISOLATION_REQUIRES_JOB,
          'the host resource policy is enforced, so direct terminal is refused before execution; use execute_code with hermes_tools.terminal for short independent commands, or job_prepare + job_start',
        );
      }
      const workdir = typeof args.workdir === 'string' ? await resolveWorkdirInsideRoots(args.workdir, cwd, roots) : undefined;
      const timeoutSeconds = (args.timeout as number | undefined) ?? maxTimeout;
      const r = await pool.run(ctx.owner.id, command, {
        timeoutSeconds,
        signal: ctx.signal,
        agentEnvironment: features.has('terminal-agent-environment'),
        // Where a command with a workdir ended becomes the session's cwd only before Hermes made workdir per call.
        ...(workdir ? { workdir, recordCwd: !transientWorkdir } : {}),
      });
      return foregroundOutcome(r, command, timeoutSeconds, limits.terminalOutputMaxChars, { release: features, startedIn: r.startedIn, maxTimeoutSeconds: maxTimeout, hermesHome: runtime.config.hermesHome });
    },
  };
}
