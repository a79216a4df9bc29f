import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { GatewayError, ErrorCode } from '../../../../shared/errors.js';
import { limitText, type Limits } from '../../../../shared/limits.js';
import { isInside } from '../../../platform/roots.js';
import { checkAborted, cmp, SUPPORT_DIR_SET, SUPPORT_DIRS, type SkillsContext } from '../common.js';
import { containedReal, FileRefused, readBounded } from '../io.js';
import { hasTraversal, isAbsoluteAnywhere } from './resolve.js';

// A skill's linked files: listing them for skill_view and serving one by `file_path`.

const SKILL_FILE_EXTS = new Set(['.md', '.py', '.yaml', '.yml', '.json', '.tex', '.sh']);
/** (support dir, extensions or null for any file, recursive) — the order of `linked_files` keys. */
const LINKED_FILE_SPECS: ReadonlyArray<readonly [string, readonly string[] | null, boolean]> = [
  ['references', ['.md'], false],
  ['templates', ['.md', '.py', '.yaml', '.yml', '.json', '.tex', '.sh'], true],
  ['assets', null, true],
  ['scripts', ['.py', '.sh', '.bash', '.js', '.ts', '.rb'], false],
];

/**
 * Relative (posix) paths of the regular files under `realBase` (a checked real path). Symlinked
 * files count only when their real path stays inside; symlinked directories are not descended
 * (pathlib's `**` does not follow them either). Bounded by a shared entry budget.
 */
async function listFiles(realBase: string, recursive: boolean, budget: { left: number }, signal?: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  const stack: string[] = [''];
  while (stack.length > 0) {
    checkAborted(signal);
    const rel = stack.pop()!;
    let handle;
    try {
      handle = await opendir(join(realBase, rel));
    } catch {
      continue;
    }
    for await (const ent of handle) {
      if (--budget.left < 0) break;
      const childRel = rel ? `${rel}/${ent.name}` : ent.name;
      if (ent.isDirectory()) {
        if (recursive) stack.push(childRel);
      } else if (ent.isFile()) {
        out.push(childRel);
      } else if (ent.isSymbolicLink()) {
        const real = await containedReal(join(realBase, childRel), realBase);
        if (real && (await stat(real).then((s) => s.isFile(), () => false))) out.push(childRel);
      }
    }
    if (budget.left < 0) break;
  }
  return out.sort(cmp);
}

export async function linkedFiles(skillDir: string, realSkillDir: string, limits: Limits, signal?: AbortSignal): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  const budget = { left: limits.skillsMaxFiles };
  for (const [sub, exts, recursive] of LINKED_FILE_SPECS) {
    const base = join(skillDir, sub);
    const realBase = await containedReal(base, realSkillDir);
    if (!realBase) continue;
    const files = await listFiles(realBase, recursive, budget, signal);
    const found = exts === null ? files : exts.flatMap((ext) => files.filter((f) => f.endsWith(ext)));
    if (found.length > 0) result[sub] = found.map((f) => `${sub}/${f}`);
  }
  return result;
}

/** Hermes `_available_skill_files`: support-dir files plus known source files elsewhere. */
async function availableSkillFiles(skillDir: string, realSkillDir: string, limits: Limits, signal?: AbortSignal): Promise<Record<string, string[]>> {
  const files = await listFiles(realSkillDir, true, { left: limits.skillsMaxFiles }, signal);
  const groups: Record<string, string[]> = {};
  for (const rel of files) {
    if (rel === 'SKILL.md' || rel.split('/').some((p) => p.startsWith('.'))) continue;
    const top = rel.includes('/') ? rel.split('/', 1)[0]! : null;
    if ((top !== null && SUPPORT_DIR_SET.has(top)) || SKILL_FILE_EXTS.has(extname(rel))) {
      const key = top !== null && SUPPORT_DIR_SET.has(top) ? top : 'other';
      (groups[key] ??= []).push(rel);
    }
  }
  const ordered: Record<string, string[]> = {};
  for (const k of [...SUPPORT_DIRS, 'other']) if (groups[k]) ordered[k] = groups[k];
  return ordered;
}

/**
 * The text of a linked file, or null for a binary one (a NUL byte, or bytes that are not UTF-8).
 * `keepBom`: Hermes before 0.22 read with utf-8 and kept a leading byte order mark in the text;
 * 0.22 reads utf-8-sig and drops it (SKILLS_CHANGES.skillTextUtf8Sig). 0.22 also reads with
 * errors='replace', so its binary answer is never reached: the gateway keeps it (divergence
 * skills-binary-linked-file).
 */
function textOf(bytes: Buffer, keepBom: boolean): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom }).decode(bytes);
  } catch {
    return null;
  }
}

export async function serveSkillFile(skillDir: string, filePath: string, label: string, config: SkillsContext, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const hint = 'Use a relative path within the skill directory';
  if (filePath.includes('\0') || hasTraversal(filePath)) {
    throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, "Path traversal ('..') is not allowed.", { success: false, hint });
  }
  if (isAbsoluteAnywhere(filePath)) {
    throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, `file_path must be relative to the skill directory, got ${JSON.stringify(filePath)}`, { success: false, hint });
  }
  const realSkillDir = await realpath(skillDir);
  const target = join(skillDir, filePath);
  const notFound = async () =>
    new GatewayError(ErrorCode.SKILL_NOT_FOUND, `File '${filePath}' not found in skill '${label}'.`, {
      success: false,
      available_files: await availableSkillFiles(skillDir, realSkillDir, config.limits, signal),
      hint: 'Use one of the available file paths listed above',
    });
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    // A dangling symlink is judged by where it points, not reported as merely missing.
    const link = await lstat(target).catch(() => null);
    if (link?.isSymbolicLink()) {
      throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, `file_path ${JSON.stringify(filePath)} is a symlink that does not resolve inside the skill directory.`, { success: false, hint });
    }
    throw await notFound();
  }
  if (!isInside(real, realSkillDir)) {
    throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, `file_path ${JSON.stringify(filePath)} resolves outside the skill directory.`, { success: false, hint });
  }
  let read: { bytes: Buffer; size: number };
  try {
    read = await readBounded(real, config.limits.skillViewMaxBytes, 'whole');
  } catch (e) {
    if (e instanceof FileRefused && e.reason === 'too_large') {
      throw new GatewayError(
        ErrorCode.SKILL_FILE_TOO_LARGE,
        `File '${filePath}' in skill '${label}' is ${e.size} bytes, above ${limitText(config.limits, 'skillViewMaxBytes')}; it was not read.`,
        { success: false, reason: 'too_large', bytes: e.size },
      );
    }
    if (e instanceof FileRefused || (e as NodeJS.ErrnoException).code === 'ENOENT') throw await notFound();
    throw new GatewayError(ErrorCode.SKILL_READ_FAILED, `Failed to read file '${filePath}' in skill '${label}': ${(e as Error).message}`, { success: false });
  }
  const text = textOf(read.bytes, !config.release.has('skillTextUtf8Sig'));
  if (text === null) {
    return { success: true, name: label, file: filePath, is_binary: true, content: `[Binary file: ${basename(real)}, size: ${read.size} bytes]` };
  }
  const result: Record<string, unknown> = { success: true, name: label, file: filePath, content: text, file_type: extname(target) };
  // The path served, as Hermes joins it (tools/skills_tool_plugin.py _serve_skill_file).
  if (config.release.has('skillViewSourcePath')) result._source_path = target;
  return result;
}
