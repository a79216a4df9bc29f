import type { JobRecord } from './store.js';

// Hermes' read-side job shapes: `_normalize_job_record` / `_apply_skill_fields` (cron/jobs.py) and
// the tool's `_format_job` / `_repeat_display` (tools/cronjob_tools.py), plus the create-time
// prompt guards `_scan_cron_prompt` and `check_gateway_lifecycle` (cron/lifecycle_guard.py).

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

/** `_normalize_job_record`: the read-safe shape every Hermes consumer sees. */
export function normalizeJobRecord(job: JobRecord): JobRecord {
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
  let state = pyStrip(coerceText(n.state));
  if (!state) state = ('enabled' in n ? truthy(n.enabled) : true) ? 'scheduled' : 'paused';
  n.state = state;
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

const get = (job: JobRecord, key: string, fallback: unknown = null) => (key in job ? job[key] : fallback);

/** `_format_job`: the job shape Hermes' cronjob tool returns. */
export function formatJob(job: JobRecord): Record<string, unknown> {
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
    base_url: get(job, 'base_url'),
    schedule: truthy(job.schedule_display) ? job.schedule_display : '?',
    repeat: repeatDisplay(job),
    deliver: get(job, 'deliver', 'local'),
    next_run_at: get(job, 'next_run_at'),
    last_run_at: get(job, 'last_run_at'),
    last_status: get(job, 'last_status'),
    last_delivery_error: get(job, 'last_delivery_error'),
    enabled,
    state: get(job, 'state', truthy(enabled) ? 'scheduled' : 'paused'),
    paused_at: get(job, 'paused_at'),
    paused_reason: get(job, 'paused_reason'),
  };
  if (truthy(job.script)) result.script = job.script;
  if (truthy(job.no_agent)) result.no_agent = true;
  if (truthy(job.enabled_toolsets)) result.enabled_toolsets = job.enabled_toolsets;
  if (truthy(job.workdir)) result.workdir = job.workdir;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Prompt guards

const THREAT_PATTERNS: Array<[RegExp, string]> = [
  [/ignore\s+(?:\w+\s+)*(?:previous|all|above|prior)\s+(?:\w+\s+)*instructions/i, 'prompt_injection'],
  [/do\s+not\s+tell\s+the\s+user/i, 'deception_hide'],
  [/system\s+prompt\s+override/i, 'sys_prompt_override'],
  [/disregard\s+(your|all|any)\s+(instructions|rules|guidelines)/i, 'disregard_rules'],
  [/cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass)/i, 'read_secrets'],
  [/authorized_keys/i, 'ssh_backdoor'],
  [/\/etc\/sudoers|visudo/i, 'sudoers_mod'],
  [/rm\s+-rf\s+\//i, 'destructive_root_rm'],
];

const SECRET_VAR = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)\w*\}?`;
const EXFIL_PATTERNS: Array<[RegExp, string]> = [
  [new RegExp(String.raw`curl\s+[^\n]*https?://[^\s"'\x60]*${SECRET_VAR}`, 'i'), 'exfil_curl_url'],
  [new RegExp(String.raw`wget\s+[^\n]*https?://[^\s"'\x60]*${SECRET_VAR}`, 'i'), 'exfil_wget_url'],
  [new RegExp(String.raw`curl\s+[^\n]*(?:--data(?:-raw|-binary|-urlencode)?|-d|--form|-F)\s+[^\n]*${SECRET_VAR}`, 'i'), 'exfil_curl_data'],
  [new RegExp(String.raw`wget\s+[^\n]*--post-(?:data|file)=[^\n]*${SECRET_VAR}`, 'i'), 'exfil_wget_post'],
  [new RegExp(String.raw`curl\s+[^\n]*(?:-H|--header)\s+["']Authorization:\s*(?:Bearer|token)\s+${SECRET_VAR}["']`, 'i'), 'exfil_curl_auth_header'],
];
const GITHUB_AUTH = new RegExp(
  String.raw`curl\s+[^\n]*(?:-H|--header)\s+["']Authorization:\s*token\s+${SECRET_VAR}["']\s+["']?https://api\.github\.com(?:/|\b)`,
  'i',
);

const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\u2062', '\u2063', '\u2064', '\ufeff', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const EMOJI_RANGES: Array<[number, number]> = [
  [0x1f000, 0x1ffff],
  [0x2600, 0x27bf],
  [0x2300, 0x23ff],
  [0x1f1e6, 0x1f1ff],
  [0x20e3, 0x20e3],
];
const isEmoji = (cp: number) => EMOJI_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);

/** Drops zero-width joiners that sit inside an emoji sequence (they are legitimate). */
function stripEmojiZwj(prompt: string): string {
  if (!prompt.includes('\u200d')) return prompt;
  const chars = Array.from(prompt);
  return chars
    .filter((ch, i) => {
      if (ch !== '\u200d') return true;
      let l = i - 1;
      while (l >= 0 && chars[l] === '\ufe0f') l--;
      let r = i + 1;
      while (r < chars.length && chars[r] === '\ufe0f') r++;
      return !(l >= 0 && r < chars.length && isEmoji(chars[l]!.codePointAt(0)!) && isEmoji(chars[r]!.codePointAt(0)!));
    })
    .join('');
}

const LIFECYCLE =
  /(?:hermes\s+gateway\s+(?:restart|stop))|(?:launchctl\s+(?:kickstart|unload|load|stop|restart)\b[^\n]*\bhermes[.-]?gateway)|(?:systemctl\s+(?:-\S+\s+)*(?:restart|stop|start)\b[^\n]*\bhermes[.-]?gateway)|(?:p?kill\b[^\n]*\bhermes\b[^\n]*\bgateway)|(?:p?kill\b[^\n]*\bgateway\b[^\n]*\bhermes)/i;

/** `_scan_cron_prompt` + `check_gateway_lifecycle`: an error message, or null when the prompt passes. */
export function scanCronPrompt(prompt: string): string | null {
  const github = GITHUB_AUTH.exec(prompt);
  const toScan = github ? prompt.replace(github[0], 'curl https://api.github.com/user') : prompt;
  const visible = stripEmojiZwj(toScan);
  for (const ch of INVISIBLE) {
    if (visible.includes(ch)) return `Blocked: prompt contains invisible unicode U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} (possible injection).`;
  }
  for (const [re, id] of [...THREAT_PATTERNS, ...EXFIL_PATTERNS]) {
    if (re.test(toScan)) return `Blocked: prompt matches threat pattern '${id}'. Cron prompts must not contain injection or exfiltration payloads.`;
  }
  if (LIFECYCLE.test(prompt)) {
    return 'Blocked: cron job contains a gateway lifecycle command (restart/stop/kill). This is blocked to prevent agent-driven SIGTERM-respawn loops under launchd/systemd supervision. Run `hermes gateway restart` from a shell outside the running gateway instead.';
  }
  return null;
}
