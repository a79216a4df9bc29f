import type { Stats } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Limits } from '../../../shared/limits.js';
import type { HermesRelease } from '../../platform/hermes/release.js';
import { resolveCatalog, type Resolved } from './catalog.js';
import { checkAborted, cmp, isRecord, SUPPORT_DIR_SET, type SkillsContext, type SkillsRoot, type SkillSummary } from './common.js';

export type { SkillsRoot } from './common.js';
import { MAX_NAME_LENGTH, matchesEnvironment, matchesPlatform, parseFrontmatter, truncateDescription } from './frontmatter.js';
import { parsePyYaml } from '../../platform/yaml.js';
import { containedReal, decodeLenient, readBounded } from './io.js';

// Walking `$HERMES_HOME/skills`: exclusions, symlink containment, the active org mirror, and
// config.yaml `skills.disabled`.

/** config.yaml is read only for `skills.disabled`; anything larger is ignored for that purpose. */

/** agent/skill_utils.py EXCLUDED_SKILL_DIRS. */
const EXCLUDED_SKILL_DIRS: ReadonlySet<string> = new Set([
  '.git', '.github', '.hub', '.archive', '.venv', 'venv', 'node_modules', 'site-packages', '__pycache__',
  '.tox', '.nox', '.pytest_cache', '.mypy_cache', '.ruff_cache',
]);
/** Since 0.22 (SKILLS_CHANGES.skillsCuratorDirsExcluded): the Curator's backups and lock files too. */
const EXCLUDED_SKILL_DIRS_CURATOR: ReadonlySet<string> = new Set([...EXCLUDED_SKILL_DIRS, '.curator_backups', '.locks']);

/** The directories the Hermes the gateway follows never scans for skills. */
export function excludedSkillDirs(release: HermesRelease): ReadonlySet<string> {
  return release.has('skillsCuratorDirsExcluded') ? EXCLUDED_SKILL_DIRS_CURATOR : EXCLUDED_SKILL_DIRS;
}

/** agent/skill_utils.py ESSENTIAL_SKILLS: never hidden by skills.disabled (SKILLS_CHANGES.skillsEssentialNotDisabled). */
const ESSENTIAL_SKILLS = ['hermes-agent'];
const ORG_MIRROR_DIR = '_org';
const ORG_ACTIVE_MARKER = '.active_org';

/** Hermes `parse_config_string_list`: a list, a JSON/Python-literal list in a string, or one name. */
function configStringList(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') {
    if (value.trim().startsWith('[')) {
      try {
        const parsed = parsePyYaml(value.trim());
        if (Array.isArray(parsed)) return parsed.map((x) => String(x));
      } catch {
        // a scalar string still means one name
      }
    }
    return [value];
  }
  if (Array.isArray(value)) return value.map((x) => String(x));
  return [];
}

/** `skills.disabled` (plus `skills.platform_disabled[platform]`, config.hermesPlatform) from config.yaml. */
export async function disabledSkillNames(hermesHome: string, platform: string | undefined, configMaxBytes: number): Promise<Set<string>> {
  try {
    const { bytes } = await readBounded(join(hermesHome, 'config.yaml'), configMaxBytes, 'whole', true);
    const parsed = parsePyYaml(decodeLenient(bytes));
    const skills = isRecord(parsed) ? parsed.skills : undefined;
    if (!isRecord(skills)) return new Set();
    const names = configStringList(skills.disabled);
    if (platform && isRecord(skills.platform_disabled) && skills.platform_disabled[platform] != null) {
      names.push(...configStringList(skills.platform_disabled[platform]));
    }
    return new Set(names.map((n) => n.trim()).filter((n) => n.length > 0));
  } catch {
    return new Set(); // missing or broken config.yaml: nothing is disabled
  }
}

// ---------------------------------------------------------------------------------------------
// The skills tree


export interface SkillFile {
  /** Lexical path of SKILL.md (or of a legacy flat `<name>.md`) under the skills dir. */
  md: string;
  /** Real path to open (inside the skills dir). */
  real: string;
}

interface WalkResult {
  skillFiles: SkillFile[];
  flatMatches: SkillFile[];
  truncated: boolean;
}

export async function openRoot(hermesHome: string): Promise<SkillsRoot | { missing: string; reason: string }> {
  const dir = join(hermesHome, 'skills');
  let st: Stats;
  try {
    st = await stat(dir);
  } catch {
    return { missing: dir, reason: `Skills directory does not exist at ${dir} (the gateway is read-only and does not create it).` };
  }
  if (!st.isDirectory()) return { missing: dir, reason: `Skills path ${dir} is not a directory.` };
  return { dir, real: await realpath(dir) };
}

async function readActiveOrg(root: SkillsRoot): Promise<string | null> {
  try {
    const marker = join(root.dir, ORG_MIRROR_DIR, ORG_ACTIVE_MARKER);
    if (!(await containedReal(marker, root.real))) return null;
    const { bytes } = await readBounded(marker, 4096, 'prefix');
    const id = decodeLenient(bytes).trim();
    return id || null;
  } catch {
    return null;
  }
}

/**
 * Hermes `iter_skill_index_files`: every SKILL.md below the skills dir, pruning excluded dirs and
 * the support dirs of a skill root, walking `_org/` only into the active org mirror. Bounded by
 * `maxEntries` directory entries; symlinks are followed only while their real path stays inside.
 * With `flatName`, also collects legacy flat `<flatName>.md` files.
 */
export async function walkSkills(root: SkillsRoot, maxEntries: number, excluded: ReadonlySet<string>, signal?: AbortSignal, flatName?: string): Promise<WalkResult> {
  const skillFiles: SkillFile[] = [];
  const flatMatches: SkillFile[] = [];
  const visited = new Set<string>([root.real]);
  const stack: Array<{ dir: string; real: string; orgRoot: boolean }> = [{ dir: root.dir, real: root.real, orgRoot: false }];
  const activeOrg = await readActiveOrg(root);
  const flatFile = flatName !== undefined ? `${flatName}.md` : undefined;
  let entries = 0;
  let truncated = false;

  walk: while (stack.length > 0) {
    checkAborted(signal);
    const current = stack.pop()!;
    const dirs: Array<{ name: string; dir: string; real: string }> = [];
    const files: Array<{ name: string; path: string; real: string }> = [];
    let handle;
    try {
      handle = await opendir(current.real); // the checked real path, not a re-resolved lexical one
    } catch {
      continue;
    }
    // for-await closes the directory handle on completion, break and throw.
    for await (const ent of handle) {
      if (++entries > maxEntries) {
        truncated = true;
        break;
      }
      const path = join(current.dir, ent.name);
      if (ent.isSymbolicLink()) {
        const real = await containedReal(path, root.real);
        if (!real) continue; // never follow a symlink out of the skills directory
        let st: Stats;
        try {
          st = await stat(real);
        } catch {
          continue;
        }
        if (st.isDirectory()) dirs.push({ name: ent.name, dir: path, real });
        else if (st.isFile()) files.push({ name: ent.name, path, real });
      } else if (ent.isDirectory()) {
        dirs.push({ name: ent.name, dir: path, real: join(current.real, ent.name) });
      } else if (ent.isFile()) {
        files.push({ name: ent.name, path, real: join(current.real, ent.name) });
      }
    }
    const hasSkillMd = files.some((f) => f.name === 'SKILL.md');
    for (const f of files) {
      if (f.name === 'SKILL.md') skillFiles.push({ md: f.path, real: f.real });
      else if (flatFile !== undefined && f.name === flatFile) flatMatches.push({ md: f.path, real: f.real });
    }
    if (truncated) break walk;
    const isRoot = current.dir === root.dir;
    const children = dirs
      .filter((d) => !excluded.has(d.name) && !(hasSkillMd && SUPPORT_DIR_SET.has(d.name)))
      .filter((d) => !(isRoot && d.name === ORG_MIRROR_DIR && activeOrg === null))
      .filter((d) => !current.orgRoot || d.name === activeOrg)
      .sort((a, b) => cmp(b.name, a.name));
    for (const d of children) {
      if (visited.has(d.real)) continue; // symlink cycles and aliases are walked once
      visited.add(d.real);
      stack.push({ dir: d.dir, real: d.real, orgRoot: isRoot && d.name === ORG_MIRROR_DIR });
    }
  }
  const byPath = (a: SkillFile, b: SkillFile) => cmp(a.md, b.md);
  return { skillFiles: skillFiles.sort(byPath), flatMatches: flatMatches.sort(byPath), truncated };
}

function categoryOf(root: SkillsRoot, md: string): string | null {
  const parts = relative(root.dir, md).split(sep);
  return parts.length >= 3 ? parts[0]! : null;
}

export async function readSkillHead(file: SkillFile, limits: Limits): Promise<string> {
  // Up to 4 bytes per character, then cut to the character budget.
  const { bytes } = await readBounded(file.real, limits.skillListReadChars * 4, 'prefix');
  return decodeLenient(bytes).slice(0, limits.skillListReadChars);
}

interface Listing {
  skills: SkillSummary[];
  missing?: string;
  truncated: boolean;
}

/** One scanned SKILL.md, before Hermes' rules decide whether and by which name it is offered. */
export interface ScannedSkill extends SkillFile {
  name: string;
  description: string;
  category: string | null;
  /** Offered on this host: its `platforms` and `environments` match. */
  visible: boolean;
}

/** Every readable SKILL.md of the skills tree, in walk order (Hermes' _skill_catalog scan, or _find_all_skills' loop before 0.22). */
async function scanSkills(ctx: SkillsContext, root: SkillsRoot, signal?: AbortSignal): Promise<{ scanned: ScannedSkill[]; truncated: boolean }> {
  const { skillFiles, truncated } = await walkSkills(root, ctx.limits.skillsMaxFiles, excludedSkillDirs(ctx.release), signal);
  const scanned: ScannedSkill[] = [];
  for (const file of skillFiles) {
    checkAborted(signal);
    let head: string;
    try {
      head = await readSkillHead(file, ctx.limits);
    } catch {
      continue; // unreadable, FIFO, vanished: skipped like Hermes skips unreadable skills
    }
    const { frontmatter, body } = parseFrontmatter(head);
    const name = (typeof frontmatter.name === 'string' ? frontmatter.name : basename(dirname(file.md))).slice(0, MAX_NAME_LENGTH);
    let description = frontmatter.description == null ? '' : String(frontmatter.description);
    if (!description) {
      // First non-heading body line.
      description = body.trim().split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('#')) ?? '';
    }
    scanned.push({
      ...file,
      name,
      description: truncateDescription(description),
      category: categoryOf(root, file.md),
      visible: matchesPlatform(frontmatter) && matchesEnvironment(frontmatter, ctx.kanbanContext),
    });
  }
  return { scanned, truncated };
}

/**
 * Hermes' _skill_catalog without its disabled and visibility filters (0.22 on): every scanned
 * skill with the name skill_view loads it by. skill_view asks it whether a disabled load name is
 * this copy's.
 */
export async function skillCatalog(ctx: SkillsContext, root: SkillsRoot, signal?: AbortSignal): Promise<{ catalog: Array<ScannedSkill & Resolved>; truncated: boolean }> {
  const { scanned, truncated } = await scanSkills(ctx, root, signal);
  return { catalog: await resolveCatalog(root, scanned, ctx.limits.skillViewMaxBytes), truncated };
}

/**
 * Hermes' _find_all_skills: the skills offered, disabled / off-platform / off-environment hidden.
 * Before 0.22 the first skill of a name wins; since (SKILLS_CHANGES.skillsLoadNames) each skill is
 * offered under its load name (resolveCatalog), and one without any is left out.
 */
export async function findAllSkills(ctx: SkillsContext, signal?: AbortSignal): Promise<Listing> {
  const root = await openRoot(ctx.hermesHome);
  if ('missing' in root) return { skills: [], missing: root.reason, truncated: false };
  const disabled = await disabledSkillNames(ctx.hermesHome, ctx.hermesPlatform, ctx.limits.hermesConfigMaxBytes);
  if (ctx.release.has('skillsEssentialNotDisabled')) for (const n of ESSENTIAL_SKILLS) disabled.delete(n);
  const summary = (s: ScannedSkill, name: string): SkillSummary => ({ name, description: s.description, category: s.category });
  if (ctx.release.has('skillsLoadNames')) {
    const { catalog, truncated } = await skillCatalog(ctx, root, signal);
    // agent/skill_utils.py is_disabled_entry: by declared name or by load name.
    const skills = catalog
      .filter((e) => e.visible && e.loadName !== null && !disabled.has(e.name) && !disabled.has(e.loadName))
      .map((e) => summary(e, e.loadName!));
    return { skills, truncated };
  }
  const { scanned, truncated } = await scanSkills(ctx, root, signal);
  const skills: SkillSummary[] = [];
  const seen = new Set<string>();
  for (const s of scanned) {
    if (!s.visible || seen.has(s.name) || disabled.has(s.name)) continue;
    seen.add(s.name);
    skills.push(summary(s, s.name));
  }
  return { skills, truncated };
}
