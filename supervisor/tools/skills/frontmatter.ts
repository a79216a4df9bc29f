import { existsSync } from 'node:fs';
import { parsePyYaml } from '../../platform/yaml.js';
import { isRecord } from './common.js';

// SKILL.md frontmatter: YAML parsing, name/description rules, platform/environment gates, tags
// and required environment variables.

export const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
const PLATFORM_MAP: Record<string, string> = { macos: 'darwin', linux: 'linux', windows: 'win32' };
const ENV_VAR_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Frontmatter = Record<string, unknown>;

/** Hermes `parse_frontmatter`: `---` fence, YAML mapping, body after the closing fence. */
export function parseFrontmatter(content: string): { frontmatter: Frontmatter; body: string } {
  const text = content.startsWith('\ufeff') ? content.slice(1) : content;
  if (!text.startsWith('---')) return { frontmatter: {}, body: text };
  const rest = text.slice(3);
  const end = /\n---\s*\n/.exec(rest);
  if (!end) return { frontmatter: {}, body: text };
  const yamlText = rest.slice(0, end.index);
  const body = rest.slice(end.index + end[0].length);
  try {
    const parsed = parsePyYaml(yamlText);
    return { frontmatter: isRecord(parsed) ? parsed : {}, body };
  } catch {
    // Hermes (agent/skill_utils.py parse_frontmatter): malformed YAML falls back to one string
    // per `key: value` line, split at the first colon.
    const frontmatter: Frontmatter = {};
    for (const line of yamlText.trim().split('\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      frontmatter[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    return { frontmatter, body };
  }
}

export function truncateDescription(description: string): string {
  return description.length <= MAX_DESCRIPTION_LENGTH ? description : description.slice(0, MAX_DESCRIPTION_LENGTH - 3) + '...';
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

export function matchesPlatform(fm: Frontmatter): boolean {
  const platforms = fm.platforms;
  if (!platforms || (Array.isArray(platforms) && platforms.length === 0)) return true;
  return asList(platforms).some((p) => {
    const normalized = String(p).toLowerCase().trim();
    const mapped = PLATFORM_MAP[normalized] ?? normalized;
    return process.platform.startsWith(mapped);
  });
}

/**
 * Offer-time relevance gate (listing only; an explicit skill_view bypasses it, as in Hermes).
 * `kanbanContext`: whether this runs for a Kanban task (config.kanbanContext).
 */
export function matchesEnvironment(fm: Frontmatter, kanbanContext: boolean): boolean {
  const environments = fm.environments;
  if (!environments || (Array.isArray(environments) && environments.length === 0)) return true;
  for (const env of asList(environments)) {
    const normalized = String(env).toLowerCase().trim();
    if (!normalized) continue;
    if (normalized === 'kanban') {
      if (kanbanContext) return true;
    } else if (normalized === 'docker') {
      if (existsSync('/.dockerenv') || existsSync('/run/.containerenv')) return true;
    } else if (normalized === 's6') {
      if (existsSync('/run/s6') || existsSync('/package/admin/s6-overlay')) return true;
    } else {
      return true; // unknown tags fail open
    }
  }
  return false;
}

export function parseTags(value: unknown): string[] {
  if (!value) return [];
  if (Array.isArray(value)) return value.filter((t) => t !== null && t !== undefined && t !== '' && t !== false && t !== 0).map((t) => String(t).trim());
  let text = String(value).trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  return text
    .split(',')
    .filter((t) => t.trim())
    .map((t) => t.trim().replace(/^["']+|["']+$/g, ''));
}

function cleanStr(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function asDictList(raw: unknown): unknown[] {
  return isRecord(raw) ? [raw] : Array.isArray(raw) ? raw : [];
}

export interface RequiredEnv {
  name: string;
  prompt: string;
  help?: string;
  required_for?: string;
  optional?: true;
}

/** Hermes `_get_required_environment_variables`: declared + setup.collect_secrets + legacy prerequisites. */
export function requiredEnvironmentVariables(fm: Frontmatter): RequiredEnv[] {
  const setup = isRecord(fm.setup) ? fm.setup : {};
  const setupHelp = cleanStr(setup.help);
  const prereqs = fm.prerequisites;
  let legacy: unknown = (isRecord(prereqs) ? prereqs.env_vars : undefined) || [];
  if (typeof legacy === 'string') legacy = [legacy];
  const entries: Array<Record<string, unknown>> = [];
  for (const item of asDictList(fm.required_environment_variables)) {
    if (typeof item === 'string') entries.push({ name: item });
    else if (isRecord(item)) entries.push(item);
  }
  for (const item of asDictList(setup.collect_secrets)) {
    if (!isRecord(item)) continue;
    const url = String(item.provider_url || item.url || '').trim() || undefined;
    entries.push({ name: item.env_var, prompt: item.prompt, url });
  }
  if (Array.isArray(legacy)) for (const v of legacy) if (String(v).trim()) entries.push({ name: String(v) });

  const required = new Map<string, RequiredEnv>();
  for (const entry of entries) {
    const envName = String(entry.name || entry.env_var || '').trim();
    if (!envName || required.has(envName) || !ENV_VAR_NAME_RE.test(envName)) continue;
    const normalized: RequiredEnv = { name: envName, prompt: String(entry.prompt || `Enter value for ${envName}`).trim() };
    const help = cleanStr(entry.help || entry.provider_url || entry.url || setupHelp);
    if (help) normalized.help = help;
    const requiredFor = cleanStr(entry.required_for);
    if (requiredFor) normalized.required_for = requiredFor;
    if (entry.optional) normalized.optional = true;
    required.set(envName, normalized);
  }
  return [...required.values()];
}
