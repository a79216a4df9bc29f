import { basename, dirname } from 'node:path';
import { GatewayError, ErrorCode } from '../../../../shared/errors.js';
import { limitText } from '../../../../shared/limits.js';
import type { CallContext, ToolDefinition } from '../../../core/tool-types.js';
import { sortSkills, type SkillsContext, type SkillsRoot } from '../common.js';
import { findAllSkills, openRoot } from '../discover.js';
import { matchesPlatform, parseFrontmatter } from '../frontmatter.js';
import { FileRefused, readBounded } from '../io.js';
import { skillAnswer } from './answer.js';
import { serveSkillFile } from './files.js';
import { isDisabled, locate } from './locate.js';
import { collectCandidates, lookupPathError, type Candidate } from './resolve.js';

// skill_view: one skill's SKILL.md with its metadata and setup readiness (answer.ts), or one of its
// linked files (files.ts), found as Hermes finds it (resolve.ts, locate.ts).

const NAMESPACE_RE = /^[a-zA-Z0-9_-]+$/;

const LOOKUP_HINT = 'Use a skill name or relative path within the skills directory.';

export function skillViewTool(config: SkillsContext): ToolDefinition {
  return {
    name: 'skill_view',
    description:
      "Skills allow for loading information about specific tasks and workflows, as well as scripts and templates. Load a skill's full content or access its linked files (references, templates, scripts). " +
      "First call returns SKILL.md content plus a 'linked_files' dict showing available references/templates/scripts. To access those, call again with file_path parameter.",
    inputSchema: {
      type: 'object',
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          description: "The skill name (use skills_list to see available skills), its 'category/name' path, or its frontmatter name.",
        },
        file_path: {
          type: 'string',
          description:
            "OPTIONAL: Path to a linked file within the skill (e.g., 'references/api.md', 'templates/config.yaml', 'scripts/validate.py'). Omit to get the main SKILL.md content.",
        },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'View a Hermes skill' },
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return { structured: await skillView(config, args ?? {}, ctx?.signal) };
    },
  };
}

async function skillView(config: SkillsContext, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const name = typeof args.name === 'string' ? args.name : '';
  const filePath = typeof args.file_path === 'string' && args.file_path !== '' ? args.file_path : undefined;
  const localCategoryName = checkedLookup(name);
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
  const content = await readSkillText(config, found, name);
  const { frontmatter } = parseFrontmatter(content);
  await checkServable(config, root, found, name, frontmatter, signal);
  if (filePath !== undefined && found.skillDir) {
    return serveSkillFile(found.skillDir, filePath, name, config, signal);
  }
  return skillAnswer(config, root, found, content, frontmatter, signal);
}

/**
 * Refuses a name that is no skill lookup; returns the `category/skill` a `plugin:skill` name
 * falls through to (plugin skills are not served by the gateway; like Hermes when no such plugin
 * exists, the qualified form is looked up in the on-disk layout), else null.
 */
function checkedLookup(name: string): string | null {
  const lookupError = lookupPathError(name);
  if (lookupError) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, lookupError, { success: false, hint: LOOKUP_HINT });
  if (!name.includes(':')) return null;
  const idx = name.indexOf(':');
  const namespace = name.slice(0, idx);
  const bare = name.slice(idx + 1);
  if (!NAMESPACE_RE.test(namespace)) {
    throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid namespace '${namespace}' in '${name}'. Namespaces must match [a-zA-Z0-9_-]+.`, { success: false });
  }
  const localCategoryName = bare ? `${namespace}/${bare}` : null;
  const err = localCategoryName ? lookupPathError(localCategoryName) : null;
  if (err) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, err, { success: false, hint: LOOKUP_HINT });
  return localCategoryName;
}

async function readSkillText(config: SkillsContext, found: Candidate, name: string): Promise<string> {
  try {
    // Before 0.22 Hermes read utf-8 and a leading byte order mark stayed in `content`; 0.22 reads
    // utf-8-sig (SKILLS_CHANGES.skillTextUtf8Sig). The frontmatter parse skips it either way.
    const ignoreBOM = !config.release.has('skillTextUtf8Sig');
    return new TextDecoder('utf-8', { fatal: false, ignoreBOM }).decode((await readBounded(found.real, config.limits.skillViewMaxBytes, 'whole')).bytes);
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
}

/** Refuses a skill this platform does not support or skills.disabled hides. */
async function checkServable(config: SkillsContext, root: SkillsRoot, found: Candidate, name: string, frontmatter: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
  if (!matchesPlatform(frontmatter)) {
    throw new GatewayError(ErrorCode.SKILL_UNSUPPORTED, `Skill '${name}' is not supported on this platform.`, { success: false, readiness_status: 'unsupported' });
  }
  const resolvedName = typeof frontmatter.name === 'string' ? frontmatter.name : basename(dirname(found.md));
  if (await isDisabled(config, root, found, resolvedName, signal)) {
    throw new GatewayError(ErrorCode.SKILL_DISABLED, `Skill '${resolvedName}' is disabled. Enable it with \`hermes skills\` or inspect the files directly on disk.`, {
      success: false,
    });
  }
}
