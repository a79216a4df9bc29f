import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { ownedRelative, pickCandidate, sortedUnique } from '../catalog.js';
import type { SkillsContext, SkillsRoot } from '../common.js';
import { disabledSkillNames, skillCatalog } from '../discover.js';
import type { Candidate } from './resolve.js';

/**
 * The one candidate `name` loads, or the refusal when several remain. Before 0.22 any two are
 * ambiguous; since (SKILLS_CHANGES.skillsLoadNames) byte-identical copies resolve to the best
 * ranked one and the refusal names each copy's load name (tools/skills_tool.py _locate_skill).
 */
export async function locate(config: SkillsContext, root: SkillsRoot, name: string, candidates: Candidate[]): Promise<Candidate | undefined> {
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
export async function isDisabled(config: SkillsContext, root: SkillsRoot, found: Candidate, resolvedName: string, signal?: AbortSignal): Promise<boolean> {
  const disabled = await disabledSkillNames(config.hermesHome, config.hermesPlatform, config.limits.hermesConfigMaxBytes);
  if (disabled.has(resolvedName)) return true;
  if (!config.release.has('skillsLoadNames')) return false;
  const rel = ownedRelative(root, found);
  if (!disabled.has(rel)) return false;
  const { catalog } = await skillCatalog(config, root, signal);
  return catalog.some((e) => e.md === found.md && e.loadName === rel);
}

