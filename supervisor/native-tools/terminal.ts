import { approvalPolicy, checkCommand } from './approval.js';
import { ErrorCode, GatewayError } from '../../shared/errors.js';
import { capHeadTail, stripAnsi } from '../../shared/output-cap.js';
import { redact } from '../../shared/redact.js';
import type { ExecResult } from '../../shared/worker-protocol/exec.js';
import type { TerminalProtocol } from '../../shared/worker-protocol/terminal.js';
import { resolveInsideRoots } from '../roots.js';
import type { ToolDefinition } from '../tool-types.js';
import type { WorkerProcess } from '../spawning/worker-process.js';
import { removeDir, type WorkerRuntime } from '../spawning/worker-runtime.js';

// Direct `terminal`: short foreground commands only (the execution guard: at most 30 s, no
// background, PTY or notification options; longer work is a job). Each owner gets
// one long-lived terminal worker in its own PID namespace plus a private state directory holding
// its cwd and exported environment, so they persist between calls like Hermes' terminal does.
// Anything long, backgrounded, PTY or notification-shaped fails before execution and points to jobs.
// A worker idle for ownerWorkerIdleSeconds is released long before its owner ends (an abandoned
// legacy session lives legacySessionIdleSeconds): only the shell goes; the state directory stays,
// so the owner's next command starts a fresh shell in the same cwd with the same exports.

interface OwnerTerminal {
  stateDir: string;
  worker?: WorkerProcess<TerminalProtocol>;
  /** The command currently running, if any (one at a time per owner). */
  running?: symbol;
  /** Where the owner's last command ended. */
  cwd?: string;
  /** Releases the worker once the owner has been idle for ownerWorkerIdleSeconds. */
  idleTimer?: NodeJS.Timeout;
}

export class TerminalPool {
  private readonly owners = new Map<string, OwnerTerminal>();
  private idleReleased = 0;

  constructor(private readonly runtime: WorkerRuntime) {}

  /** The owner's current working directory (where its last command ended), else the default. */
  cwdFor(ownerId: string): string {
    return this.owners.get(ownerId)?.cwd ?? this.runtime.config.terminalCwd;
  }

  get activeWorkers(): number {
    let n = 0;
    for (const o of this.owners.values()) if (o.worker?.alive) n++;
    return n;
  }

  /** Workers released because their owner was idle (its cwd and exports kept). */
  get idleReleases(): number {
    return this.idleReleased;
  }

  /** Owners whose terminal state (cwd, exports) is kept, with or without a live worker. */
  get owned(): number {
    return this.owners.size;
  }

  private armIdleRelease(owner: OwnerTerminal): void {
    clearTimeout(owner.idleTimer);
    const worker = owner.worker;
    if (!worker) return;
    owner.idleTimer = setTimeout(() => {
      owner.idleTimer = undefined;
      if (owner.running || owner.worker !== worker || !worker.alive) return;
      owner.worker = undefined;
      this.idleReleased++;
      void worker.kill();
    }, this.runtime.config.limits.ownerWorkerIdleSeconds * 1000);
    owner.idleTimer.unref();
  }

  private async workerFor(owner: OwnerTerminal): Promise<WorkerProcess<TerminalProtocol>> {
    if (owner.worker?.alive) return owner.worker;
    const worker = this.runtime.spawnWorker('terminal-worker');
    owner.worker = worker;
    await worker.waitFor((f) => f.type === 'ready');
    return worker;
  }

  async run(ownerId: string, command: string, options: { timeoutSeconds: number; workdir?: string; signal: AbortSignal }): Promise<ExecResult> {
    let owner = this.owners.get(ownerId);
    if (!owner) {
      owner = { stateDir: this.runtime.privateDir('terminal') };
      this.owners.set(ownerId, owner);
    }
    if (owner.running) {
      throw new GatewayError(ErrorCode.BUSY, 'this session already has a terminal command running; terminal runs one foreground command at a time per session');
    }
    const run = Symbol('terminal command');
    owner.running = run;
    clearTimeout(owner.idleTimer);
    const current = owner;
    try {
      const worker = await this.workerFor(owner);
      // A client that goes away takes its command with it: the worker (and with it the whole
      // namespace) is killed; the owner's cwd/env snapshot survives. The owner is free at once:
      // its next call gets a fresh worker instead of waiting for this one to finish dying.
      const onAbort = () => {
        if (current.worker === worker) current.worker = undefined;
        if (current.running === run) current.running = undefined;
        void worker.kill();
      };
      options.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const outcome = await worker
          .request({
            type: 'exec',
            command,
            cwd: options.workdir ?? this.cwdFor(ownerId),
            timeoutMs: options.timeoutSeconds * 1000,
            stateDir: owner.stateDir,
            maxOutputBytes: this.runtime.config.limits.workerTransportMaxBytes,
          })
          .catch((e: Error) => {
            if (options.signal.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'the client disconnected; the command and everything it started were killed');
            throw new GatewayError(ErrorCode.WORKER_FAILED, `terminal worker failed: ${e.message}`);
          });
        // Only a second command while one runs is refused by the worker, and `running` above
        // never lets one through; should it happen anyway, it is the worker's failure, not output.
        if ('error' in outcome) throw new GatewayError(ErrorCode.WORKER_FAILED, `terminal worker failed: ${outcome.error}`);
        // Every result carries where the command ended; remembering it spares file and
        // execute_code calls a synchronous read of the state directory.
        if (outcome.cwd) current.cwd = outcome.cwd;
        return outcome;
      } finally {
        options.signal.removeEventListener('abort', onAbort);
      }
    } finally {
      if (current.running === run) current.running = undefined;
      if (!current.running && this.owners.get(ownerId) === current) this.armIdleRelease(current);
    }
  }

  /** Release hook: the owner ended; kill its worker and forget its cwd/env. */
  async release(ownerId: string): Promise<void> {
    const owner = this.owners.get(ownerId);
    if (!owner) return;
    this.owners.delete(ownerId);
    clearTimeout(owner.idleTimer);
    await owner.worker?.kill();
    removeDir(owner.stateDir);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.owners.keys()].map((id) => this.release(id)));
  }
}


/** Hermes' terminal output pipeline: cap (40% head / 60% tail) → ANSI strip → redact. */
export function shapeTerminalOutput(output: string, maxChars: number, command: string): string {
  const capped = capHeadTail(output, maxChars).text;
  const plain = stripAnsi(capped);
  // Hermes turns the ENV pass on only for commands that print the environment.
  const printsEnv = /^\s*(env|printenv|set|export|declare)\b/.test(command);
  return redact(plain, { codeFile: !printsEnv });
}

const LONG_WORK_REFUSED = `${ErrorCode.LONG_RUNNING_OPERATION_REQUIRES_JOB}, before anything runs`;
const USE_A_JOB = 'For long or background work use a job: session_open, job_prepare(command, workdir), job_start, then job_status.';

export function terminalTool(pool: TerminalPool, runtime: WorkerRuntime): ToolDefinition {
  const { limits, roots } = { limits: runtime.config.limits, roots: runtime.config.roots };
  const maxTimeout = limits.terminalMaxTimeoutSeconds;
  approvalPolicy(); // a broken policy/dangerous-commands.json fails startup, not the first command
  return {
    name: 'terminal',
    description: `Run a short foreground shell command (at most ${maxTimeout} s; timeout=${maxTimeout} when omitted) on the Hermes host. cwd and exported variables persist per session (session_token or MCP session). Background, PTY, notification options or longer timeouts are refused: use job_prepare/job_start for builds, tests and deploys, or execute_code with hermes_tools.terminal for independent pipelines.`,
    inputSchema: {
      type: 'object',
      // Hermes' field names are kept so Hermes-shaped calls validate and get the refusal that says
      // what to do, instead of a schema error; each refused field says so in its description.
      properties: {
        command: { type: 'string', minLength: 1, maxLength: 65536, description: 'The shell command, run in bash in the session\'s cwd.' },
        background: {
          type: 'boolean',
          default: false,
          description: `Refused when true (${LONG_WORK_REFUSED}): direct terminal never backgrounds a command. ${USE_A_JOB}`,
        },
        timeout: {
          type: 'integer',
          minimum: 1,
          description: `Seconds before the command is killed (exit code 124); default and maximum ${maxTimeout}. A larger value is refused (${LONG_WORK_REFUSED}). ${USE_A_JOB}`,
        },
        workdir: { type: 'string', minLength: 1, maxLength: 4096, description: 'Directory to run in (inside the allowed roots); default the session\'s current directory.' },
        pty: {
          type: 'boolean',
          default: false,
          description: `Refused when true (${LONG_WORK_REFUSED}): there is no pseudo-terminal, so interactive programs cannot run here; pass their input non-interactively (flags, a here-document). ${USE_A_JOB}`,
        },
        notify_on_complete: {
          type: 'boolean',
          default: false,
          description: `Refused when true (${LONG_WORK_REFUSED}): nothing is delivered to the client later. ${USE_A_JOB} job_status(wait_seconds) waits for the end.`,
        },
        watch_patterns: {
          type: 'array',
          items: { type: 'string' },
          description: `Refused when non-empty (${LONG_WORK_REFUSED}): output is not watched in the background. ${USE_A_JOB} job_status shows its output tail.`,
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
    requiresOwner: true,
    holdsLease: true,
    async handler(args, ctx) {
      const command = args.command as string;
      // The approval guard: a hardline command never runs, whatever else the call asks for.
      // Dangerous-but-not-hardline commands (git reset --hard, chmod 777, …) do run here: this is
      // a write tool, and the ChatGPT host asks the user to confirm its calls, which is the
      // approval Hermes would have asked for. (Inside execute_code there is no such prompt, so
      // hermes_tools.terminal denies them; see execute-code.ts.)
      const verdict = checkCommand(command, runtime.config);
      if (verdict.verdict === 'hardline') {
        throw new GatewayError(
          ErrorCode.COMMAND_BLOCKED,
          `BLOCKED (hardline): ${verdict.key}. This command is on the unconditional blocklist and is refused before execution; it cannot run through this gateway. Do not retry or rephrase it; if it is really needed, the user has to run it outside the agent.`,
          { pattern_key: verdict.key },
        );
      }
      // The Execution Guard: every refusal happens before anything runs.
      const reasons: string[] = [];
      if (args.background === true) reasons.push('background=true');
      if (args.pty === true) reasons.push('pty=true');
      if (args.notify_on_complete === true) reasons.push('notify_on_complete');
      if (Array.isArray(args.watch_patterns) && args.watch_patterns.length > 0) reasons.push('watch_patterns');
      if (typeof args.timeout === 'number' && args.timeout > maxTimeout) reasons.push(`timeout=${args.timeout} (direct terminal allows at most ${maxTimeout} s)`);
      if (reasons.length > 0) {
        throw new GatewayError(
          ErrorCode.LONG_RUNNING_OPERATION_REQUIRES_JOB,
          `direct terminal runs short foreground commands only; refused before execution: ${reasons.join(', ')}. Use job_prepare + job_start (with a session_token) for long or background work.`,
        );
      }
      if (runtime.config.resourcePolicy) {
        throw new GatewayError(
          ErrorCode.RESOURCE_ISOLATION_REQUIRES_JOB,
          'the host resource policy is enforced, so direct terminal is refused before execution; use execute_code with hermes_tools.terminal for short independent commands, or job_prepare + job_start',
        );
      }
      const workdir = typeof args.workdir === 'string' ? await resolveInsideRoots(args.workdir, roots) : undefined;
      const timeoutSeconds = (args.timeout as number | undefined) ?? maxTimeout;
      const r = await pool.run(ctx.owner.id, command, { timeoutSeconds, signal: ctx.signal, ...(workdir ? { workdir } : {}) });
      const output = shapeTerminalOutput(r.output, limits.terminalOutputMaxChars, command);
      // `output` is redacted (shapeTerminalOutput), the other fields are the gateway's own.
      return {
        structured: r.timedOut
          ? { output, exit_code: 124, error: `Command timed out after ${timeoutSeconds} seconds` }
          : { output, exit_code: r.exitCode, error: null },
        redacted: 'output',
      };
    },
  };
}
