import { existsSync } from 'node:fs';

// Advice texts that /readyz's probes and `doctor` share, so both say the same thing.

/** What to do when project roots do not exist: create them (the roots probe, the graph's GRAPH_NO_ROOT). */
export function createRootsAdvice(missing: readonly string[]): string {
  return `create ${missing.length === 1 ? 'it' : 'them'} (mkdir -p ${missing.join(' ')}) or set HERMES_MCP_ROOTS to your existing project directories`;
}

/** What to do about a Hermes home: create it when it does not exist; else point HERMES_HOME at the real one. */
export function hermesHomeAdvice(home: string): string {
  return existsSync(home)
    ? `point HERMES_HOME at your Hermes home (now ${home}); Hermes writes SOUL.md there on its first run`
    : `create the Hermes home ${home}: install and run Hermes once (it makes the home and SOUL.md), or mkdir -m 700 -p ${home} and write a SOUL.md there; or point HERMES_HOME at your Hermes home`;
}

/**
 * Every probe's action ends its alternatives with "or set HERMES_MCP_OPTIONAL_COMPONENTS=<names> to
 * run without ..."; for a component already declared optional that advice is noise, so readiness
 * drops it (and what is left before it).
 */
const OPTIONAL_ADVICE = /[,;]?\s*or set HERMES_MCP_OPTIONAL_COMPONENTS=[\w,]+ to run without\b[^;]*$/;

export function withoutOptionalAdvice(action: string): string {
  return action.replace(OPTIONAL_ADVICE, '');
}
