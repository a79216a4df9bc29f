import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { CallContext, ToolDefinition } from '../../core/tool-types.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import type { SkillsConfig, SkillsContext } from './common.js';
import { skillsList } from './list.js';
import { skillView } from './view.js';

// ---------------------------------------------------------------------------------------------
// Tool definitions

/**
 * `release`: the Hermes whose skills tools these answer as (a Hermes of unknown version: the newest the gateway knows).
 * Both get Hermes' dispatch coercion (supervisor/core/hermes-args.ts), as every Hermes tool does there.
 */
export function skillsTools(settings: SkillsConfig, release: HermesRelease = new HermesRelease(undefined)): ToolDefinition[] {
  const config: SkillsContext = { ...settings, release };
  const annotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;
  const tools: ToolDefinition[] = [
    {
      name: 'skills_list',
      description: 'List available skills (name + description). Use skill_view(name) to load full content.',
      inputSchema: {
        type: 'object',
        properties: { category: { type: 'string', description: 'Optional category filter to narrow results' } },
        additionalProperties: false,
      },
      annotations: { ...annotations, title: 'List Hermes skills' },
      async handler(args: Record<string, unknown>, ctx: CallContext) {
        return { structured: await skillsList(config, args ?? {}, ctx?.signal) };
      },
    },
    {
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
      annotations: { ...annotations, title: 'View a Hermes skill' },
      async handler(args: Record<string, unknown>, ctx: CallContext) {
        return { structured: await skillView(config, args ?? {}, ctx?.signal) };
      },
    },
  ];
  return tools.map(withHermesArgumentRepair);
}
