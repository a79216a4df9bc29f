import { limitText } from '../../../shared/limits.js';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative } from 'node:path';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';
import { ownedRelative, pickCandidate, sortedUnique } from './catalog.js';
import { isRecord, sortSkills, toPosix, type SkillsContext } from './common.js';
import { disabledSkillNames, findAllSkills, openRoot, skillCatalog, type SkillsRoot } from './discover.js';
import { linkedFiles, serveSkillFile } from './files.js';
import { matchesPlatform, parseFrontmatter, parseTags, requiredEnvironmentVariables } from './frontmatter.js';
import { containedReal, decodeLenient, FileRefused, readBounded } from './io.js';
import { collectCandidates, lookupPathError, type Candidate } from './resolve.js';

// ---------------------------------------------------------------------------------------------
// skill_view

const NAMESPACE_RE = /^[a-zA-Z0-9_-]+$/;
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
const LOOKUP_HINT = 'Use a skill name or relative path within the skills directory.';

/**
 * The one candidate `name` loads, or the refusal when several remain. Before 0.22 any two are
 * ambiguous; since (SKILLS_CHANGES.skillsLoadNames) byte-identical copies resolve to the best
 * ranked one and the refusal names each copy's load name (tools/skills_tool.py _locate_skill).
 */
async function locate(config: SkillsContext, root: SkillsRoot, name: string, candidates: Candidate[]): Promise<Candidate | undefined> {
  if (candidates.length <= 1) return candidates[0];
  const matches = candidates.map((c) => c.md);
  if (!config.release.has('skillsLoadNames')) {
    throw new GatewayError(
      ErrorCode.SKILL_AMBIGUOUS,
      // Hermes' words, external_dirs included (the gateway searches the local skills dir only).
      `Ambiguous skill name '${name}': ${candidates.length} skills match across your local skills dir and external_dirs. Refusing to guess — load one explicitly by its categorized path.`,
      {
        success: false,
        matches,
        hint: "Pass the full relative path instead of the bare name (e.g., 'category/skill-name'), or rename one of the colliding skills so each name is unique.",
      },
    );
  }
  const won = await pickCandidate(root, candidates, config.limits.skillViewMaxBytes);
  if (won !== null) return candidates[won];
  // A copy at the root's top level is reached by the bare name itself, which cannot tell it apart.
  const loadNames = sortedUnique(candidates.map((c) => ownedRelative(root, c)).filter((n) => n !== name));
  throw new GatewayError(
    ErrorCode.SKILL_AMBIGUOUS,
    `Ambiguous skill name '${name}': ` +
      (loadNames.length > 0 ? `use one of ${loadNames.join(', ')}. ` : '') +
      `${candidates.length} different skills share this name in the same skills directory tier; refusing to guess.`,
    {
      success: false,
      matches,
      load_names: loadNames,
      hint: 'Pass the exact relative path instead of the bare name, or rename one of the colliding skills so each name is unique.',
    },
  );
}

/**
 * Whether skills.disabled hides this skill from skill_view: by its declared name; since 0.22 also
 * by the exact path that is this copy's load name (tools/skills_tool.py skill_view, _is_skill_disabled).
 */
async function isDisabled(config: SkillsContext, root: SkillsRoot, found: Candidate, resolvedName: string, signal?: AbortSignal): Promise<boolean> {
  const disabled = await disabledSkillNames(config.hermesHome, config.hermesPlatform, config.limits.hermesConfigMaxBytes);
  if (disabled.has(resolvedName)) return true;
  if (!config.release.has('skillsLoadNames')) return false;
  const rel = ownedRelative(root, found);
  if (!disabled.has(rel)) return false;
  const { catalog } = await skillCatalog(config, root, signal);
  return catalog.some((e) => e.md === found.md && e.loadName === rel);
}

export async function skillView(config: SkillsContext, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const name = typeof args.name === 'string' ? args.name : '';
  const filePath = typeof args.file_path === 'string' && args.file_path !== '' ? args.file_path : undefined;
  const lookupError = lookupPathError(name);
  if (lookupError) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, lookupError, { success: false, hint: LOOKUP_HINT });

  // `plugin:skill` — plugin skills are not served by the gateway; like Hermes when no such plugin
  // exists, the qualified form falls through to the on-disk `category/skill` layout.
  let localCategoryName: string | null = null;
  if (name.includes(':')) {
    const idx = name.indexOf(':');
    const namespace = name.slice(0, idx);
    const bare = name.slice(idx + 1);
    if (!NAMESPACE_RE.test(namespace)) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid namespace '${namespace}' in '${name}'. Namespaces must match [a-zA-Z0-9_-]+.`, { success: false });
    }
    localCategoryName = bare ? `${namespace}/${bare}` : null;
    const err = localCategoryName ? lookupPathError(localCategoryName) : null;
    if (err) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, err, { success: false, hint: LOOKUP_HINT });
  }

  const root = await openRoot(config.hermesHome);
  if ('missing' in root) {
    // Hermes' words; the gateway itself never creates the directory (skills_list says so).
    throw new GatewayError(ErrorCode.SKILL_NOT_FOUND, 'Skills directory does not exist yet. It will be created on first install.', { success: false });
  }
  const found = await locate(config, root, name, await collectCandidates(root, name, localCategoryName, config, signal));
  if (!found) {
    const available = sortSkills((await findAllSkills(config, signal)).skills).slice(0, 20).map((s) => s.name);
    throw new GatewayError(ErrorCode.SKILL_NOT_FOUND, `Skill '${name}' not found.`, {
      success: false,
      available_skills: available,
      hint: 'Use skills_list to see all available skills',
    });
  }

  let content: string;
  try {
    // Before 0.22 Hermes read utf-8 and a leading byte order mark stayed in `content`; 0.22 reads
    // utf-8-sig (SKILLS_CHANGES.skillTextUtf8Sig). The frontmatter parse skips it either way.
    const ignoreBOM = !config.release.has('skillTextUtf8Sig');
    content = new TextDecoder('utf-8', { fatal: false, ignoreBOM }).decode((await readBounded(found.real, config.limits.skillViewMaxBytes, 'whole')).bytes);
  } catch (e) {
    if (e instanceof FileRefused && e.reason === 'too_large') {
      throw new GatewayError(
        ErrorCode.SKILL_FILE_TOO_LARGE,
        `Skill file ${found.md} is ${e.size} bytes, above ${limitText(config.limits, 'skillViewMaxBytes')}; it was not read.`,
        { success: false, reason: 'too_large', bytes: e.size },
      );
    }
    throw new GatewayError(ErrorCode.SKILL_READ_FAILED, `Failed to read skill '${name}': ${(e as Error).message}`, { success: false });
  }
  const { frontmatter } = parseFrontmatter(content);
  if (!matchesPlatform(frontmatter)) {
    throw new GatewayError(ErrorCode.SKILL_UNSUPPORTED, `Skill '${name}' is not supported on this platform.`, { success: false, readiness_status: 'unsupported' });
  }
  const resolvedName = typeof frontmatter.name === 'string' ? frontmatter.name : basename(dirname(found.md));
  if (await isDisabled(config, root, found, resolvedName, signal)) {
    throw new GatewayError(ErrorCode.SKILL_DISABLED, `Skill '${resolvedName}' is disabled. Enable it with \`hermes skills\` or inspect the files directly on disk.`, {
      success: false,
    });
  }

  if (filePath !== undefined && found.skillDir) {
    return serveSkillFile(found.skillDir, filePath, name, config, signal);
  }

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
