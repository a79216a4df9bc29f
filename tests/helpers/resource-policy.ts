import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A host resource policy (HERMES_MCP_RESOURCE_POLICY) for tests: two profiles, the short-worker
// limits every short worker (execute_code units, Hermes call workers) gets, and a jobs section.

export const LIGHT = { memory_max: '256M', cpu_quota: '50%', tasks_max: 64 };
export const HEAVY = { memory_max: '512M', cpu_quota: '150%', tasks_max: 128 };
export const SHORT = { memory_max: '384M', cpu_quota: '75%', tasks_max: 96 };

export function resourcePolicy(jobs: Partial<{ memory_budget: string; host_headroom: string; max_heavy: number }> = {}) {
  return { version: 1, profiles: { light: LIGHT, heavy: HEAVY }, short_workers: SHORT, jobs: { memory_budget: '100G', host_headroom: '1', max_heavy: 1, ...jobs } };
}

/** Writes `content` (a JSON value, or raw text) as `dir`/resources.json with an explicit mode (the umask must not decide a case); returns its path. */
export function writeResourcePolicy(dir: string, content: unknown = resourcePolicy(), mode = 0o644): string {
  const path = join(dir, 'resources.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  chmodSync(path, mode);
  return path;
}
