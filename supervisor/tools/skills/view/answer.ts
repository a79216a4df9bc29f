import { realpath, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import { isRecord, toPosix, type SkillsContext, type SkillsRoot } from '../common.js';
import { parseTags, requiredEnvironmentVariables, type Frontmatter } from '../frontmatter.js';
import { containedReal, decodeLenient, readBounded } from '../io.js';
import { linkedFiles } from './files.js';
import type { Candidate } from './resolve.js';

// What skill_view answers for a skill's SKILL.md: Hermes' result shape, with its setup readiness
// (required environment variables and credential files) judged as Hermes judges it.

const DOTENV_MAX_BYTES = 1024 * 1024;

/** Hermes `load_env`: $HERMES_HOME/.env as `KEY=value` lines (`export ` and quotes stripped); absent or unreadable: empty. */
async function readDotenv(hermesHome: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let text: string;
  try {
    text = decodeLenient((await readBounded(join(hermesHome, '.env'), DOTENV_MAX_BYTES, 'whole', true)).bytes);
  } catch {
    return out;
  }
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (!line || line.startsWith('#') || !line.includes('=')) continue;
    if (line.startsWith('export ')) line = line.slice(7);
    const eq = line.indexOf('=');
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim().replace(/^["']+|["']+$/g, '');
  }
  return out;
}

/**
 * Hermes `register_credential_files`, as far as it answers which declared files are missing: each
 * entry (a path, or `{path}` / `{name}`) relative to HERMES_HOME, missing unless it is a file that
 * stays inside HERMES_HOME. (The gateway registers nothing for mounting.)
 */
async function missingCredentialFiles(hermesHome: string, raw: unknown): Promise<string[]> {
  if (!Array.isArray(raw)) return [];
  const missing: string[] = [];
  const realHome = await realpath(hermesHome).catch(() => hermesHome);
  for (const entry of raw) {
    const rel = (typeof entry === 'string' ? entry : isRecord(entry) ? String(entry.path || entry.name || '') : '').trim();
    if (!rel) continue;
    const real = rel.startsWith('/') ? null : await containedReal(join(hermesHome, rel), realHome);
    const isFile = real !== null && (await stat(real).then((st) => st.isFile(), () => false));
    if (!isFile) missing.push(rel);
  }
  return missing;
}
/** skill_view's answer for the SKILL.md of `found`, read as `content`. */
export async function skillAnswer(config: SkillsContext, root: SkillsRoot, found: Candidate, content: string, frontmatter: Frontmatter, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const metadata = frontmatter.metadata;
  const hermesMeta = isRecord(metadata) && isRecord(metadata.hermes) ? metadata.hermes : {};
  const tags = parseTags(hermesMeta.tags || frontmatter.tags || '');
  const relatedSkills = parseTags(hermesMeta.related_skills || frontmatter.related_skills || '');
  const linked = found.skillDir ? await linkedFiles(found.skillDir, await realpath(found.skillDir), config.limits, signal) : {};
  const hasLinked = Object.keys(linked).length > 0;
  const skillName =
    typeof frontmatter.name === 'string' ? frontmatter.name : found.skillDir ? basename(found.skillDir) : basename(found.md, extname(found.md));

  const required = requiredEnvironmentVariables(frontmatter);
  // Hermes `_is_env_var_persisted`: a name in $HERMES_HOME/.env counts by its value there,
  // anything else by the (gateway's) process environment.
  const dotenv = await readDotenv(config.hermesHome);
  const isSet = (n: string) => (n in dotenv ? Boolean(dotenv[n]) : Boolean(config.inheritedEnvironment[n]));
  const missing = required.filter((e) => !e.optional && !isSet(e.name)).map((e) => e.name);
  const missingFiles = await missingCredentialFiles(config.hermesHome, frontmatter.required_credential_files);
  const setupNeeded = missing.length > 0 || missingFiles.length > 0;
  const result: Record<string, unknown> = {
    success: true,
    name: skillName,
    description: frontmatter.description ?? '',
    tags,
    related_skills: relatedSkills,
    content,
    path: toPosix(relative(root.dir, found.md)),
    skill_dir: found.skillDir,
    linked_files: hasLinked ? linked : null,
    usage_hint: hasLinked
      ? "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'"
      : null,
    required_environment_variables: required,
    required_commands: [],
    missing_required_environment_variables: missing,
    missing_credential_files: missingFiles,
    missing_required_commands: [],
    setup_needed: setupNeeded,
    setup_skipped: false,
    readiness_status: setupNeeded ? 'setup_needed' : 'available',
  };
  // The file served, as Hermes names it for its repeat-view dedup (the gateway has none: every view
  // returns the whole file). A path under HERMES_HOME, as skill_dir already is.
  if (config.release.has('skillViewSourcePath')) result._source_path = found.md;
  const setupHelp = required.find((e) => e.help)?.help;
  if (setupHelp) result.setup_help = setupHelp;
  if (missing.length > 0) {
    result.gateway_setup_hint =
      `Secure secret entry is not available through the MCP gateway. Set ${missing.join(', ')} in the environment the Hermes tools run with (e.g. ${join(config.hermesHome, '.env')}).`;
  }
  if (setupNeeded) {
    const items = [...missing.map((n) => `env $${n}`), ...missingFiles.map((f) => `file ${f}`)];
    const note = `Setup needed before using this skill: missing ${items.join(', ')}.`;
    result.setup_note = setupHelp ? `${note} ${setupHelp}` : note;
  }
  if (frontmatter.compatibility) result.compatibility = frontmatter.compatibility;
  if (isRecord(metadata)) result.metadata = metadata;
  // Hermes bumps view/use counters here (tools/skill_usage.py); the gateway is read-only and does not.
  return result;
}
