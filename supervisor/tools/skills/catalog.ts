import { createHash } from 'node:crypto';
import { basename, dirname, relative, sep } from 'node:path';
import { cmp, type SkillsRoot } from './common.js';
import { readBounded } from './io.js';

// Which skill a name loads when several share it, as Hermes decides it since 0.22
// (SKILLS_CHANGES.skillsLoadNames): agent/skill_utils.py resolve_skill_catalog,
// pick_skill_candidate, skill_candidate_rank and provably_same_skill, re-expressed for the one
// skills directory the gateway reads. Hermes orders its skill roots in tiers (trusted project
// skills, the profile's own directory, skills.create_dir, skills.external_dirs) and lets a lower
// tier win across roots; the gateway reads only `$HERMES_HOME/skills` (Hermes' local tier), so every
// candidate here is of one tier and one root, and only the same-root rules apply.

/** A skill file under the skills root: `md` as the walk reached it (lexical), `real` its real path. */
export interface RootedFile {
  md: string;
  real: string;
}

type Rank = readonly [notSkillMd: boolean, depth: number];

/** skill_candidate_rank: a real SKILL.md beats a legacy flat `<name>.md`, then the shallower path wins. */
function candidateRank(root: SkillsRoot, md: string): Rank {
  return [basename(md) !== 'SKILL.md', relative(root.dir, md).split(sep).length];
}

function compareRank(a: Rank, b: Rank): number {
  return Number(a[0]) - Number(b[0]) || a[1] - b[1];
}

/**
 * provably_same_skill: every path is one skill when they are one real file, or byte-identical.
 * A file that cannot be read within `maxBytes` (Hermes reads it whole) proves nothing.
 */
async function provablySameSkill(files: readonly RootedFile[], maxBytes: number): Promise<boolean> {
  if (new Set(files.map((f) => f.real)).size === 1) return true;
  try {
    const digests = new Set<string>();
    for (const f of files) digests.add(createHash('sha256').update((await readBounded(f.real, maxBytes, 'whole')).bytes).digest('hex'));
    return digests.size === 1;
  } catch {
    return false;
  }
}

/**
 * pick_skill_candidate for candidates of one tier and one root: a lone candidate wins; identical
 * copies resolve to the strictly best rank; anything else is ambiguous (null).
 */
export async function pickCandidate(root: SkillsRoot, candidates: readonly RootedFile[], maxBytes: number): Promise<number | null> {
  if (candidates.length === 1) return 0;
  if (candidates.length > 1 && (await provablySameSkill(candidates, maxBytes))) {
    const ranks = candidates.map((c) => candidateRank(root, c.md));
    // Python's sort is stable: equal ranks keep their order.
    const ranked = candidates.map((_, i) => i).sort((a, b) => compareRank(ranks[a]!, ranks[b]!) || a - b);
    if (compareRank(ranks[ranked[0]!]!, ranks[ranked[1]!]!) !== 0) return ranked[0]!;
  }
  return null;
}

/** A candidate's exact load path (tools/skills_tool.py _owned_relative): its skill directory, or a flat `.md` without the suffix, relative to the root. */
export function ownedRelative(root: SkillsRoot, candidate: { skillDir: string | null; md: string }): string {
  const target = candidate.skillDir ?? candidate.md.replace(/\.md$/, '');
  return posixRelative(root, target);
}

function posixRelative(root: SkillsRoot, path: string): string {
  return relative(root.dir, path).split(sep).join('/') || '.';
}

/** What resolve_skill_catalog adds to a scanned skill. */
export interface Resolved {
  /** The skill directory relative to the root (posix). */
  relativePath: string;
  /** The name skill_view loads it by: its name when unique, else its relative path when that is; null when it cannot be loaded by either (or an identical copy wins). */
  loadName: string | null;
}

/**
 * resolve_skill_catalog for one root: each scanned SKILL.md (its declared or directory `name`)
 * gets the name skill_view resolves to it, judging each alias (declared name, directory name,
 * relative path) by pickCandidate over every skill that has that alias.
 */
export async function resolveCatalog<T extends RootedFile & { name: string }>(root: SkillsRoot, entries: readonly T[], maxBytes: number): Promise<Array<T & Resolved>> {
  const out = entries.map((e) => ({ ...e, relativePath: posixRelative(root, dirname(e.md)), loadName: null as string | null }));
  const owners = new Map<string, number[]>();
  out.forEach((e, i) => {
    for (const alias of new Set([e.name, basename(dirname(e.md)), e.relativePath])) {
      const list = owners.get(alias);
      if (list) list.push(i);
      else owners.set(alias, [i]);
    }
  });
  const winners = new Map<string, number | null>();
  const winner = async (alias: string): Promise<number | null> => {
    if (!winners.has(alias)) {
      const idxs = owners.get(alias)!;
      const won = await pickCandidate(root, idxs.map((j) => out[j]!), maxBytes);
      winners.set(alias, won === null ? null : idxs[won]!);
    }
    return winners.get(alias)!;
  };
  for (const [i, e] of out.entries()) {
    const byName = await winner(e.name);
    if (byName === i) e.loadName = e.name; // unique
    else if (byName === null) e.loadName = (await winner(e.relativePath)) === i ? e.relativePath : null; // ambiguous
    // else shadowed by an identical copy: not loadable by itself
  }
  return out;
}

/** Sorted (code points), duplicates dropped. */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(cmp);
}
