import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadLimits } from '../../shared/limits.js';
import { HermesRelease } from '../../supervisor/platform/hermes/release.js';
import type { SkillsContext, SkillsRoot } from '../../supervisor/tools/skills/common.js';
import type { TempDirs } from './temp.js';

/**
 * A HERMES_HOME of its own (its real path) whose skills/ holds `files` (path under skills/ -> text),
 * with the skills context of a Hermes of `version` (undefined: the newest the gateway knows).
 */
export function skillsTree(temp: TempDirs, files: Record<string, string>, version?: string): { home: string; root: SkillsRoot; ctx: SkillsContext } {
  const home = realpathSync(temp.make('hmcp-skills-'));
  const dir = join(home, 'skills');
  mkdirSync(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  const ctx: SkillsContext = { hermesHome: home, limits: loadLimits({}, {}), kanbanContext: false, inheritedEnvironment: {}, release: new HermesRelease(version) };
  return { home, root: { dir, real: dir }, ctx };
}
