import { realpath } from 'node:fs/promises';
import { basename, dirname, extname, join, relative } from 'node:path';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';
import { isRecord, limitText, sortSkills, toPosix, type SkillsConfig } from './common.js';
import { disabledSkillNames, findAllSkills, openRoot } from './discover.js';
import { linkedFiles, serveSkillFile } from './files.js';
import { matchesPlatform, parseFrontmatter, parseTags, requiredEnvironmentVariables } from './frontmatter.js';
import { decodeLenient, FileRefused, readBounded } from './io.js';
import { collectCandidates, lookupPathError } from './resolve.js';

// ---------------------------------------------------------------------------------------------
// skill_view

const NAMESPACE_RE = /^[a-zA-Z0-9_-]+$/;
const LOOKUP_HINT = 'Use a skill name or relative path within the skills directory.';

export async function skillView(config: SkillsConfig, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const name = typeof args.name === 'string' ? args.name : '';
  const filePath = typeof args.file_path === 'string' && args.file_path !== '' ? args.file_path : undefined;
  const lookupError = lookupPathError(name);
  if (lookupError) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, lookupError, { hint: LOOKUP_HINT });

  // `plugin:skill` — plugin skills are not served by the gateway; like Hermes when no such plugin
  // exists, the qualified form falls through to the on-disk `category/skill` layout.
  let localCategoryName: string | null = null;
  if (name.includes(':')) {
    const idx = name.indexOf(':');
    const namespace = name.slice(0, idx);
    const bare = name.slice(idx + 1);
    if (!NAMESPACE_RE.test(namespace)) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid namespace '${namespace}' in '${name}'. Namespaces must match [a-zA-Z0-9_-]+.`);
    }
    localCategoryName = bare ? `${namespace}/${bare}` : null;
    const err = localCategoryName ? lookupPathError(localCategoryName) : null;
    if (err) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, err, { hint: LOOKUP_HINT });
  }

  const root = await openRoot(config.hermesHome);
  if ('missing' in root) {
    throw new GatewayError(ErrorCode.SKILL_NOT_FOUND, `Skill '${name}' not found. ${root.reason}`, { available_skills: [] });
  }
  const candidates = await collectCandidates(root, name, localCategoryName, config.limits, signal);
  if (candidates.length > 1) {
    throw new GatewayError(
      ErrorCode.SKILL_AMBIGUOUS,
      `Ambiguous skill name '${name}': ${candidates.length} skills match in the skills directory. Refusing to guess — load one explicitly by its categorized path.`,
      {
        matches: candidates.map((c) => c.md),
        hint: "Pass the full relative path instead of the bare name (e.g., 'category/skill-name'), or rename one of the colliding skills so each name is unique.",
      },
    );
  }
  const found = candidates[0];
  if (!found) {
    const available = sortSkills((await findAllSkills(config, signal)).skills).slice(0, 20).map((s) => s.name);
    throw new GatewayError(ErrorCode.SKILL_NOT_FOUND, `Skill '${name}' not found.`, {
      available_skills: available,
      hint: 'Use skills_list to see all available skills',
    });
  }

  let content: string;
  try {
    content = decodeLenient((await readBounded(found.real, config.limits.skillViewMaxBytes, 'whole')).bytes);
  } catch (e) {
    if (e instanceof FileRefused && e.reason === 'too_large') {
      throw new GatewayError(
        ErrorCode.SKILL_FILE_TOO_LARGE,
        `Skill file ${found.md} is ${e.size} bytes, above ${limitText(config.limits, 'skillViewMaxBytes')}; it was not read.`,
        { reason: 'too_large', bytes: e.size },
      );
    }
    throw new GatewayError(ErrorCode.SKILL_READ_FAILED, `Failed to read skill '${name}': ${(e as Error).message}`);
  }
  if (content.startsWith('\ufeff')) content = content.slice(1);
  const { frontmatter } = parseFrontmatter(content);
  if (!matchesPlatform(frontmatter)) {
    throw new GatewayError(ErrorCode.SKILL_UNSUPPORTED, `Skill '${name}' is not supported on this platform.`, { readiness_status: 'unsupported' });
  }
  const resolvedName = typeof frontmatter.name === 'string' ? frontmatter.name : basename(dirname(found.md));
  if ((await disabledSkillNames(config.hermesHome, config.hermesPlatform)).has(resolvedName)) {
    throw new GatewayError(ErrorCode.SKILL_DISABLED, `Skill '${resolvedName}' is disabled. Enable it with \`hermes skills\` or inspect the files directly on disk.`, {
      reason: 'disabled',
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
  const missing = required.filter((e) => !e.optional && !config.inheritedEnvironment[e.name]).map((e) => e.name);
  const setupNeeded = missing.length > 0;
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
    missing_required_commands: [],
    setup_needed: setupNeeded,
    setup_skipped: false,
    readiness_status: setupNeeded ? 'setup_needed' : 'available',
  };
  const setupHelp = required.find((e) => e.help)?.help;
  if (setupHelp) result.setup_help = setupHelp;
  if (setupNeeded) {
    result.gateway_setup_hint =
      `Secure secret entry is not available through the MCP gateway. Set ${missing.join(', ')} in the environment the Hermes tools run with (e.g. ${join(config.hermesHome, '.env')}).`;
    const note = `Setup needed before using this skill: missing ${missing.map((n) => `env $${n}`).join(', ')}.`;
    result.setup_note = setupHelp ? `${note} ${setupHelp}` : note;
  }
  if (frontmatter.compatibility) result.compatibility = frontmatter.compatibility;
  if (isRecord(metadata)) result.metadata = metadata;
  // Hermes bumps view/use counters here (tools/skill_usage.py); the gateway is read-only and does not.
  return result;
}
