// Read-only re-implementation of Hermes' `skills_list` / `skill_view` (tools/skills_tool.py,
// agent/skill_utils.py) over `$HERMES_HOME/skills`. Same layout rules, frontmatter handling,
// result shapes and sort order; differences are deliberate and gateway-shaped:
// - nothing is ever written: a missing skills directory is reported, not created, and a view
//   does NOT bump Hermes' view/use counters (tools/skill_usage.py) or mark files as read;
// - every walk is bounded (limits.skillsMaxFiles directory entries) and never follows a symlink
//   whose real path leaves the skills directory (or, for linked files, the skill directory);
// - files are opened with O_NOFOLLOW|O_NONBLOCK, judged by fstat, and size-bounded before reading;
// - no SKILL.md preprocessing (template variables, inline shell), no plugin/external/project skill
//   directories, and required environment variables are checked against the gateway's own environment
//   (config.inheritedEnvironment) only;
// - no repeat-view dedup: every view returns the whole file (Hermes 0.21 on answers a repeat view
//   within one task with a stub, tools/skills_tool_dedup.py);
// - a linked file that is not UTF-8 text is answered as binary on every version (Hermes 0.22
//   decodes it with replacement characters).
// Where Hermes changed after 0.19 (SKILLS_CHANGES in platform/hermes/release.ts), the tools follow
// the Hermes the gateway fronts.

import type { Adapter } from '../../core/adapter.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { HermesRelease } from '../../platform/hermes/release.js';
import type { SkillsConfig } from './common.js';
import { skillsListTool } from './list/index.js';
import { skillViewTool } from './view/index.js';

export type { SkillsConfig } from './common.js';

/**
 * `release`: the Hermes whose skills tools these answer as (a Hermes of unknown version: the newest the gateway knows).
 * Both get Hermes' dispatch coercion (supervisor/core/hermes-args.ts), as every Hermes tool does there.
 */
export function skillsTools(settings: SkillsConfig, release: HermesRelease = new HermesRelease(undefined)): ToolDefinition[] {
  const config = { ...settings, release };
  return [skillsListTool(config), skillViewTool(config)].map(withHermesArgumentRepair);
}

/**
 * skills_list / skill_view, catalogued under Hermes' source name so the policy filters them with
 * Hermes' other tools. `release`: the Hermes the gateway fronts, whose skills rules they follow.
 */
export function skillsAdapter(config: SkillsConfig, release?: HermesRelease): Adapter {
  return { name: 'skills', source: { name: 'hermes', tools: () => skillsTools(config, release) } };
}
