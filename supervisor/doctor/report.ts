import type { ProbeResult } from '../platform/health/readiness.js';

// One line per check, ok / warn / fail, each warning and failure with the one command or setting
// that fixes it; or the same as JSON for scripts. Only a failure makes the exit code 1: a warning
// is something to know (development mode, an optional backend missing), not a blocker.

export type Level = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  name: string;
  level: Level;
  reason: string;
  fix?: string;
}

const GENERIC_FIX = 'see the reason; /readyz on loopback shows this component\'s details';

/** A readiness component's probe result as a doctor line: required and not ready is a failure. */
export function fromProbe(name: string, result: ProbeResult & { required: boolean }, fixes: Record<string, string> = {}): DoctorCheck {
  const fix = result.action ?? fixes[name] ?? GENERIC_FIX;
  const reason = result.reason ?? (typeof result.details?.reason === 'string' ? result.details.reason : result.status);
  if (!result.ready) {
    if (result.required) return { name, level: 'fail', reason, fix };
    return { name, level: 'warn', reason: `${reason} (optional here: HERMES_MCP_OPTIONAL_COMPONENTS)`, fix };
  }
  // Ready but not whole: some language servers missing, isolation degraded; or ready with nothing
  // in it yet (session_db `empty`: no session history, worth knowing if HERMES_HOME is not the one meant).
  if (result.status === 'degraded' || result.status === 'empty') return { name, level: 'warn', reason: `${result.status}: ${reason}`, fix };
  return { name, level: 'ok', reason: result.status === 'ok' || !result.reason ? result.status : `${result.status}: ${result.reason}` };
}

export function formatText(checks: readonly DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map((c) => `${c.level.toUpperCase().padEnd(4)}  ${c.name.padEnd(width)}  ${c.reason}${c.fix && c.level !== 'ok' ? `\n      ${' '.repeat(width)}  fix: ${c.fix}` : ''}`);
  const failed = checks.filter((c) => c.level === 'fail').length;
  const warned = checks.filter((c) => c.level === 'warn').length;
  return `${lines.join('\n')}\n${failed ? `${failed} check(s) failed` : 'no check failed'}${warned ? `, ${warned} warning(s)` : ''}\n`;
}

export function exitCode(checks: readonly DoctorCheck[]): number {
  return checks.some((c) => c.level === 'fail') ? 1 : 0;
}
