import type { HermesRelease } from '../../../platform/hermes/release.js';
import type { JobRecord } from './store.js';

// Hermes' read-side job shapes, for `list` (which reads jobs.json without starting Hermes):
// `_normalize_job_record` / `_apply_skill_fields` / `effective_job_state` (cron/jobs.py) and the
// tool's `_format_job` / `_repeat_display` (tools/cronjob_tools.py; tools/cronjob_job_args.py in
// later Hermes), each as the detected Hermes has it (release.ts CRON_CHANGES).

/** Python truthiness for JSON values. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

/** Python `str()` of a JSON value. */
function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/** `_coerce_job_text` */
function coerceText(v: unknown, fallback = ''): string {
  return v === null || v === undefined ? fallback : pyStr(v);
}

/** Slices by code points, as Python does. */
export function pySlice(text: string, end: number): string {
  const chars = Array.from(text);
  return chars.length <= end ? text : chars.slice(0, end).join('');
}

const pyStrip = (s: string) => s.replace(/^\s+|\s+$/gu, '');

/** `_normalize_skill_list` / `_canonical_skills` */
export function canonicalSkills(skill: unknown, skills: unknown): string[] {
  let raw: unknown[];
  if (skills === null || skills === undefined) raw = truthy(skill) ? [skill] : [];
  else if (typeof skills === 'string') raw = [skills];
  else if (Array.isArray(skills)) raw = skills;
  else raw = [skills];
  const out: string[] = [];
  for (const item of raw) {
    const text = pyStrip(truthy(item) ? pyStr(item) : '');
    if (text && !out.includes(text)) out.push(text);
  }
  return out;
}

/** `_apply_skill_fields` */
export function applySkillFields(job: JobRecord): JobRecord {
  const skills = canonicalSkills(job.skill, job.skills);
  return { ...job, skills, skill: skills[0] ?? null };
}

function scheduleDisplayFor(job: JobRecord): string {
  const display = pyStrip(coerceText(job.schedule_display));
  if (display) return display;
  const schedule = job.schedule;
  if (schedule && typeof schedule === 'object' && !Array.isArray(schedule)) {
    for (const key of ['display', 'value', 'expr', 'run_at']) {
      const text = pyStrip(coerceText((schedule as Record<string, unknown>)[key]));
      if (text) return text;
    }
  } else if (schedule !== null && schedule !== undefined) return pyStr(schedule);
  return '?';
}

const get = (job: JobRecord, key: string, fallback: unknown = null) => (key in job ? job[key] : fallback);

/** `_has_pause_marker` (later Hermes) */
const hasPauseMarker = (job: JobRecord) => pyStrip(coerceText(job.state)) === 'paused' || truthy(job.paused_at);

/**
 * `effective_job_state` (later Hermes): the state shown follows `enabled`, so a half-paused record
 * never shows as paused while it still fires; completed and error stay as they are.
 */
function effectiveJobState(job: JobRecord): string {
  const stored = pyStrip(coerceText(job.state));
  if (stored === 'completed' || stored === 'error') return stored;
  if (!truthy(get(job, 'enabled', true))) return hasPauseMarker(job) || stored === 'paused' ? 'paused' : stored || 'paused';
  if (stored === 'paused' || truthy(job.paused_at)) return 'scheduled';
  return stored || 'scheduled';
}

/** `_normalize_job_record`: the read-safe shape every Hermes consumer sees. */
export function normalizeJobRecord(job: JobRecord, release: HermesRelease): JobRecord {
  const n = applySkillFields(job);
  const id = coerceText(n.id, 'unknown');
  const prompt = coerceText(n.prompt);
  n.id = id;
  n.prompt = prompt;
  let name = pyStrip(coerceText(n.name));
  if (!name) {
    const script = pyStrip(coerceText(n.script));
    const skills = n.skills as string[];
    const label = prompt || skills[0] || script || id || 'cron job';
    name = pyStrip(pySlice(label, 50)) || 'cron job';
  }
  n.name = name;
  n.schedule_display = scheduleDisplayFor(n);
  if (release.has('cron_job_view_fields')) {
    n.state = effectiveJobState(n);
  } else {
    let state = pyStrip(coerceText(n.state));
    if (!state) state = ('enabled' in n ? truthy(n.enabled) : true) ? 'scheduled' : 'paused';
    n.state = state;
  }
  return n;
}

/** `_repeat_display` */
export function repeatDisplay(job: JobRecord): string {
  const repeat = (truthy(job.repeat) ? job.repeat : {}) as Record<string, unknown>;
  const times = repeat.times ?? null;
  const completed = 'completed' in repeat ? repeat.completed : 0;
  if (times === null) return 'forever';
  if (times === 1) return completed === 0 ? 'once' : '1/1';
  return truthy(completed) ? `${pyStr(completed)}/${pyStr(times)}` : `${pyStr(times)} times`;
}

/** `_format_job`: the job shape Hermes' cronjob tool returns, as the detected Hermes has it. */
export function formatJob(job: JobRecord, release: HermesRelease): Record<string, unknown> {
  const later = release.has('cron_job_view_fields');
  const prompt = truthy(job.prompt) ? pyStr(job.prompt) : '';
  const skills = canonicalSkills(job.skill, job.skills);
  const id = truthy(job.id) ? pyStr(job.id) : 'unknown';
  const nameSource = [job.name, pySlice(prompt, 50), skills[0] ?? '', id, 'cron job'].find(truthy);
  const enabled = get(job, 'enabled', true);
  const result: Record<string, unknown> = {
    job_id: id,
    name: pyStr(nameSource),
    skill: skills[0] ?? null,
    skills,
    prompt_preview: Array.from(prompt).length > 100 ? pySlice(prompt, 100) + '...' : prompt,
    model: get(job, 'model'),
    provider: get(job, 'provider'),
  };
  if (release.has('cron_pinned')) result.pinned = pyStrip(truthy(job.model) ? pyStr(job.model) : '') !== '';
  Object.assign(result, {
    base_url: get(job, 'base_url'),
    schedule: truthy(job.schedule_display) ? job.schedule_display : '?',
    repeat: repeatDisplay(job),
    deliver: get(job, 'deliver', 'local'),
    next_run_at: get(job, 'next_run_at'),
    last_run_at: get(job, 'last_run_at'),
    last_status: get(job, 'last_status'),
    last_delivery_error: get(job, 'last_delivery_error'),
  });
  if (later) {
    // Hermes redacts last_error itself; here the gateway's one redaction pass covers the answer.
    Object.assign(result, { last_delivery_unverified: get(job, 'last_delivery_unverified'), last_fire_error: get(job, 'last_fire_error'), last_error: get(job, 'last_error') });
  }
  Object.assign(result, {
    enabled,
    state: later ? effectiveJobState(job) : get(job, 'state', truthy(enabled) ? 'scheduled' : 'paused'),
    paused_at: get(job, 'paused_at'),
    paused_reason: get(job, 'paused_reason'),
  });
  const optional = later ? LATER_OPTIONAL_KEYS : OPTIONAL_KEYS;
  for (const key of optional) if (truthy(job[key])) result[key] = key === 'no_agent' ? true : job[key];
  if (later) {
    const stored = job.context_from;
    const refs = typeof stored === 'string' ? [stored] : Array.isArray(stored) ? stored : truthy(stored) ? [stored] : [];
    const isSelf = (r: unknown) => pyStrip(pyStr(r)).toLowerCase() === 'self' || r === job.id;
    if (refs.some(isSelf)) result.continuity = true;
    const external = refs.filter((r) => !isSelf(r));
    if (external.length > 0) result.context_from = external;
    if (typeof job.attach_to_session === 'boolean') result.attach_to_session = job.attach_to_session;
  }
  return result;
}

/** The keys `_format_job` adds only when set, in its order: 0.19.0's, and later Hermes' `_FORMAT_JOB_OPTIONAL_KEYS`. */
const OPTIONAL_KEYS = ['script', 'no_agent', 'enabled_toolsets', 'workdir'] as const;
const LATER_OPTIONAL_KEYS = ['script', 'reasoning_effort', 'monitor_script', 'monitor_url', 'monitor_state', 'no_agent', 'enabled_toolsets', 'workdir', 'interpreter'] as const;
