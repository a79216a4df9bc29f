import { limitText } from '../../../../shared/limits.js';
import { cmp, sortSkills, type SkillsContext } from '../common.js';
import type { CallContext, ToolDefinition } from '../../../core/tool-types.js';
import { findAllSkills } from '../discover.js';

// skills_list: every skill's name and description (category filter optional), as Hermes lists them.

export function skillsListTool(config: SkillsContext): ToolDefinition {
  return {
    name: 'skills_list',
    description: 'List available skills (name + description). Use skill_view(name) to load full content.',
    inputSchema: {
      type: 'object',
      properties: { category: { type: 'string', description: 'Optional category filter to narrow results' } },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'List Hermes skills' },
    async handler(args: Record<string, unknown>, ctx: CallContext) {
      return { structured: await skillsList(config, args ?? {}, ctx?.signal) };
    },
  };
}

async function skillsList(config: SkillsContext, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const listing = await findAllSkills(config, signal);
  const truncation = listing.truncated
    ? {
        truncated: true,
        warning: `Stopped walking the skills directory after ${config.limits.skillsMaxFiles} entries (${limitText(config.limits, 'skillsMaxFiles')}); the list may be incomplete.`,
      }
    : {};
  if (listing.skills.length === 0) {
    return {
      success: true,
      skills: [],
      categories: [],
      message: listing.missing ? `No skills found. ${listing.missing}` : 'No skills found in skills/ directory.',
      ...truncation,
    };
  }
  const category = typeof args.category === 'string' && args.category !== '' ? args.category : undefined;
  const filtered = category === undefined ? listing.skills : listing.skills.filter((s) => s.category === category);
  const skills = sortSkills(filtered);
  const categories = [...new Set(skills.map((s) => s.category).filter((c): c is string => !!c))].sort(cmp);
  return {
    success: true,
    skills,
    categories,
    count: skills.length,
    hint: 'Use skill_view(name) to see full content, tags, and linked files',
    ...truncation,
  };
}
