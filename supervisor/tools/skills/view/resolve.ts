import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Limits } from '../../../../shared/limits.js';
import { isInside } from '../../../platform/roots.js';
import { checkAborted, SUPPORT_DIR_SET, type SkillsContext } from '../common.js';
import { excludedSkillDirs, readSkillHead, walkSkills, type SkillFile, type SkillsRoot } from '../discover.js';
import { parseFrontmatter } from '../frontmatter.js';
import { containedReal } from '../io.js';

// skill_view name checks and resolution of a name to its candidate SKILL.md files.

export function hasTraversal(p: string): boolean {
  return p.split(/[\\/]/).some((part) => part === '..');
}

export function isAbsoluteAnywhere(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p);
}

export function lookupPathError(name: string): string | null {
  const candidate = name.trim();
  if (candidate.includes('\0')) return 'Skill name must not contain NUL characters.';
  if (isAbsoluteAnywhere(candidate)) return 'Skill name must be a relative path within the skills directory.';
  if (hasTraversal(candidate)) return "Skill name cannot contain '..' path traversal components.";
  return null;
}

/** Hermes `is_skill_support_path`, judged on the part of the path below the skills dir. */
async function isSupportPath(root: SkillsRoot, p: string): Promise<boolean> {
  const parts = relative(root.dir, p).split(sep);
  for (let i = 0; i < parts.length - 1; i++) {
    if (!SUPPORT_DIR_SET.has(parts[i]!)) continue;
    if (existsSync(join(root.dir, ...parts.slice(0, i), 'SKILL.md'))) return true;
  }
  return false;
}

async function isFile(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isFile(), () => false);
}

/**
 * tools/skills_tool.py _is_package_owned_markdown (0.22 on, SKILLS_CHANGES.skillsPackageOwnedMarkdown):
 * a Markdown file below a folder (under the root) that holds a SKILL.md belongs to that skill.
 */
async function isPackageOwned(root: SkillsRoot, p: string): Promise<boolean> {
  const parts = relative(root.dir, p).split(sep);
  for (let depth = 1; depth < parts.length; depth++) {
    if (await isFile(join(root.dir, ...parts.slice(0, depth), 'SKILL.md'))) return true;
  }
  return false;
}

export interface Candidate {
  /** Skill directory (lexical), null for a legacy flat `<name>.md`. */
  skillDir: string | null;
  md: string;
  real: string;
}

async function frontmatterName(file: SkillFile, limits: Limits): Promise<unknown> {
  try {
    return parseFrontmatter(await readSkillHead(file, limits)).frontmatter.name;
  } catch {
    return undefined;
  }
}

/**
 * tools/skills_tool.py _collect_skill_candidates over the skills directory: every skill `name`
 * could mean (direct path, directory or frontmatter name anywhere, legacy flat `<name>.md`), one
 * per real file.
 */
export async function collectCandidates(root: SkillsRoot, name: string, localCategoryName: string | null, ctx: SkillsContext, signal?: AbortSignal): Promise<Candidate[]> {
  const limits = ctx.limits;
  const packageOwned = ctx.release.has('skillsPackageOwnedMarkdown') ? (p: string) => isPackageOwned(root, p) : async () => false;
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  const record = (c: Candidate) => {
    if (seen.has(c.real)) return;
    seen.add(c.real);
    candidates.push(c);
  };
  for (const direct of [name, localCategoryName]) {
    if (!direct) continue;
    const dir = join(root.dir, direct);
    if (isInside(dir, root.dir) && dir !== root.dir && !(await isSupportPath(root, dir))) {
      const md = join(dir, 'SKILL.md');
      const real = await containedReal(md, root.real);
      if (real && (await stat(real).then((s) => s.isFile(), () => false))) {
        record({ skillDir: dir, md, real });
        continue;
      }
    }
    const flat = dir + '.md';
    if (isInside(flat, root.dir) && !(await isSupportPath(root, flat)) && !(await packageOwned(flat))) {
      const real = await containedReal(flat, root.real);
      if (real && (await stat(real).then((s) => s.isFile(), () => false))) record({ skillDir: null, md: flat, real });
    }
  }
  // Recursive by directory name or frontmatter `name:` (skills_list shows the frontmatter name),
  // plus legacy flat `<name>.md` files anywhere outside skill support dirs.
  const bare = /[\\/]/.test(name) ? undefined : name;
  const { skillFiles, flatMatches } = await walkSkills(root, limits.skillsMaxFiles, excludedSkillDirs(ctx.release), signal, bare);
  for (const file of skillFiles) {
    checkAborted(signal);
    if (basename(dirname(file.md)) === name || (await frontmatterName(file, limits)) === name) {
      record({ skillDir: dirname(file.md), md: file.md, real: file.real });
    }
  }
  for (const file of flatMatches) if (!(await packageOwned(file.md))) record({ skillDir: null, md: file.md, real: file.real });
  return candidates;
}
