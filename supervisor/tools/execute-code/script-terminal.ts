import { checkCommand, commandContext, denyMessage, type CommandVerdict } from '../command-guards/index.js';
import { redactCommandResult } from '../../core/result.js';
import type { HermesRelease } from '../../platform/hermes/release.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import { foregroundBackgroundGuidance, foregroundOutcome } from '../processes/terminal/index.js';
import type { CallUnit } from './call-unit.js';
import { monotonicMs } from '../../../shared/clock.js';

// hermes_tools.terminal inside an execute_code script: run by the script's own unit, inside the
// call's PID namespace and bounded by the call's deadline, after the approval guard.

/** A script's terminal call on `unit` (claimed by a call): Hermes' terminal result, redacted as the terminal tool's is. */
export async function scriptTerminal(unit: CallUnit, args: Record<string, unknown>, runtime: WorkerRuntime, release: HermesRelease): Promise<unknown> {
  const call = unit.call!;
  // The approval guard, request-bound: dispatching the script was its one approval, so any
  // command inside it that would need another (dangerous) or may never run (hardline) is denied
  // with Hermes' blocked result, before anything reaches the worker. Nothing is granted for later.
  const verdict = checkCommand(String(args.command ?? ''), commandContext(runtime.config, typeof args.workdir === 'string' ? args.workdir : unit.cwd));
  if (verdict.verdict !== 'allow') return blockedCommandResult(verdict);
  // Hermes' terminal_tool refuses a foreground command that backgrounds work itself, here too.
  const guidance = foregroundBackgroundGuidance(String(args.command ?? ''), release);
  if (guidance) return { output: '', exit_code: -1, error: guidance, status: 'error' };
  // hermes_tools.terminal runs inside this call's own namespace, bounded by the call's deadline.
  const remaining = Math.max(1, Math.floor((call.deadline - monotonicMs()) / 1000));
  const requested = typeof args.timeout === 'number' && args.timeout > 0 ? args.timeout : runtime.config.limits.terminalMaxTimeoutSeconds;
  const timeoutSeconds = Math.min(requested, remaining);
  const startedIn = typeof args.workdir === 'string' ? args.workdir : unit.cwd;
  const r = await unit.worker.request({
    type: 'exec',
    command: String(args.command ?? ''),
    cwd: startedIn,
    ...(release.has('terminal-agent-environment') ? { agentEnvironment: true } : {}),
    timeoutMs: timeoutSeconds * 1000,
    stateDir: unit.dir,
    maxOutputBytes: runtime.config.limits.workerTransportMaxBytes,
  });
  if ('error' in r) return { error: r.error };
  // Redacted as the terminal tool's result is: this reply to the script is no result the pipeline sees.
  const context = { release: release, startedIn, maxTimeoutSeconds: runtime.config.limits.executeCodeDeadlineSeconds, hermesHome: runtime.config.hermesHome };
  return redactCommandResult(foregroundOutcome(r, String(args.command ?? ''), timeoutSeconds, runtime.config.limits.terminalOutputMaxChars, context).structured!);
}

/** Hermes' terminal result for a command its approval guard refused (`status: "blocked"`). */
function blockedCommandResult(verdict: Exclude<CommandVerdict, { verdict: 'allow' }>) {
  if (verdict.verdict === 'deny') {
    // The operator's approvals.deny rules: the same words as the direct tools' COMMAND_DENIED.
    const what = 'problem' in verdict ? `approvals.deny cannot be applied (${verdict.problem})` : `deny rule '${verdict.rule}'`;
    return { output: '', exit_code: -1, error: `Command denied: ${what}. execute_code scripts get no further approvals; ${denyMessage(verdict)}`, status: 'blocked' };
  }
  const why =
    verdict.verdict === 'hardline'
      ? 'it is on the unconditional (hardline) blocklist, so it cannot run through this gateway at all. Do not retry or rephrase it; if it is really needed, the user has to run it outside the agent.'
      : 'the script itself was the one approval. Do not retry or rephrase it inside execute_code; if it is needed, run it with the direct terminal tool, where the user is asked to confirm.';
  return { output: '', exit_code: -1, error: `Command denied: ${verdict.key}. execute_code scripts get no further approvals; ${why}`, status: 'blocked' };
}
