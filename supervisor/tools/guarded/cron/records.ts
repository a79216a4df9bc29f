import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { readHermesConfig } from '../../../platform/hermes-config.js';
import { applySkillFields, canonicalSkills, normalizeJobRecord, truthy } from './format.js';
import { computeNextRun, type ParseContext, type Schedule } from './schedule.js';
import type { JobRecord } from './store.js';

// The cronjob tool's argument normalisation and job-record helpers, ported from Hermes'
// tools/cronjob_tools.py and cron/jobs.py: deliver/skills/context_from arguments, the default-model
// snapshot, job lookup by id or unique name, updates, and new job ids.

const DELIVER_TOKEN = /^[A-Za-z][A-Za-z0-9_-]*(?::[^,\u0000-\u001f]+)?$/;
export const SAFE_JOB_ID = /^[^/\\]+$/;

export function invalidArgs(message: string): GatewayError {
  return new GatewayError(ErrorCode.INVALID_ARGUMENTS, message);
}

/** `_normalize_deliver_param` plus a shape check: comma-separated `local`, `origin`, `all`, `platform` or `platform:chat_id[:thread_id]`. */
export function normalizeDeliver(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (!text) return null;
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !p || !DELIVER_TOKEN.test(p))) {
    throw invalidArgs(`cronjob: deliver ${JSON.stringify(text)} is not a delivery target: use 'local' (the default), 'origin', 'all', 'platform' or 'platform:chat_id[:thread_id]', comma-separated to combine`);
  }
  return parts.join(',');
}

export function skillsArg(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const skills = canonicalSkills(null, value);
  for (const s of skills) {
    if (s.split(/[/\\]/).some((seg) => seg === '..') || isAbsolute(s)) throw invalidArgs(`cronjob: skill name ${JSON.stringify(s)} is not a skill name`);
  }
  return skills;
}

export function contextFromArg(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const refs: string[] = [];
  for (const r of value as string[]) {
    const t = r.trim();
    if (t && !refs.includes(t)) refs.push(t);
  }
  return refs;
}

/** The global default model Hermes snapshots for unpinned jobs (`_resolve_default_model_snapshot`); null when unknown. */
export function defaultModelSnapshot(hermesHome: string): string | null {
  try {
    const cfg = readHermesConfig(hermesHome).doc;
    if (!cfg) return null;
    const model = cfg.model;
    let value: unknown = null;
    if (typeof model === 'string') value = model;
    else if (model && typeof model === 'object') value = (model as Record<string, unknown>).default || (model as Record<string, unknown>).model;
    if (typeof value !== 'string') return null;
    const text = value.trim();
    // An env-expanded value (`${VAR}`) is resolved by Hermes at fire time; a guessed snapshot could
    // falsely trip its drift guard, so leave it unset (Hermes' own fail-open).
    return text && !text.includes('$') ? text : null;
  } catch {
    return null;
  }
}

interface Resolved {
  index: number;
  job: JobRecord;
  normalized: JobRecord;
}

/** `resolve_job_ref`: exact id first, then a case-insensitive name; several names are ambiguous. */
export function resolveJob(jobs: JobRecord[], ref: string): Resolved {
  const byId = jobs.findIndex((j) => j.id === ref);
  if (byId >= 0) return { index: byId, job: jobs[byId]!, normalized: normalizeJobRecord(jobs[byId]!) };
  const lower = ref.toLowerCase();
  const matches = jobs.map((job, index) => ({ job, index })).filter(({ job }) => typeof job.name === 'string' && job.name.toLowerCase() === lower);
  if (matches.length === 0) {
    throw new GatewayError(ErrorCode.CRONJOB_NOT_FOUND, `Job with ID or name '${ref}' not found. Use cronjob(action='list') to inspect jobs.`);
  }
  if (matches.length > 1) {
    throw new GatewayError(
      ErrorCode.CRONJOB_AMBIGUOUS,
      `Job name '${ref}' is ambiguous — matches ${matches.length} jobs: ${matches.map((m) => pyId(m.job)).join(', ')}. Use the job ID instead.`,
      {
        matches: matches.map(({ job }) => {
          const n = normalizeJobRecord(job);
          return { id: n.id, name: n.name, schedule: n.schedule_display, next_run_at: n.next_run_at ?? null };
        }),
      },
    );
  }
  const { index, job } = matches[0]!;
  return { index, job, normalized: normalizeJobRecord(job) };
}

const pyId = (job: JobRecord) => String(job.id ?? 'unknown');

/** Hermes' `is_job_runnable` for a manual run: enabled (missing = enabled) and not paused. */
export function isRunnable(job: JobRecord): boolean {
  const enabled = 'enabled' in job ? truthy(job.enabled) : true;
  return enabled && job.state !== 'paused';
}

/** `update_job`: merge, re-derive skills and schedule fields, recompute next_run_at when needed. */
export function applyUpdate(job: JobRecord, updates: JobRecord, clock: ParseContext): JobRecord {
  const updated = applySkillFields({ ...job, ...updates });
  if ('schedule' in updates) {
    const schedule = updated.schedule as Schedule;
    updated.schedule_display = 'schedule_display' in updates ? updates.schedule_display : (schedule.display ?? updated.schedule_display);
    if (updated.state !== 'paused') updated.next_run_at = computeNextRun(schedule, clock);
  }
  const enabled = 'enabled' in updated ? truthy(updated.enabled) : true;
  if (enabled && updated.state !== 'paused' && !truthy(updated.next_run_at)) updated.next_run_at = computeNextRun(updated.schedule, clock);
  return updated;
}

/**
 * Hermes re-validates a job's provider/base_url pair on every update (its F8 credential guard).
 * The gateway cannot resolve Hermes' provider registry, so it fails closed on such a job.
 */
export function assertGatewayCanUpdate(job: JobRecord): void {
  const baseUrl = typeof job.base_url === 'string' ? job.base_url.trim() : '';
  if (!baseUrl) return;
  const provider = typeof job.provider === 'string' ? job.provider.trim().toLowerCase() : '';
  if (provider === 'custom') return;
  throw new GatewayError(
    ErrorCode.CRONJOB_REQUIRES_HERMES,
    `Job '${pyId(job)}' carries a base_url override${provider ? ` for provider '${provider}'` : ''} that only Hermes can validate; update it with Hermes itself (hermes cron). Nothing was written.`,
  );
}

export function newJobId(existing: JobRecord[]): string {
  for (;;) {
    const id = randomUUID().replaceAll('-', '').slice(0, 12);
    if (!existing.some((j) => j.id === id)) return id;
  }
}

/**
 * The two host settings this tool reads: GatewayConfig's `cronjobMutations` / `hermesTimezone`
 * (loadConfig parses HERMES_MCP_CRONJOB_MUTATIONS and HERMES_TIMEZONE); `env` is consulted only
 * for a config built without them (embedding, unit tests).
 */
