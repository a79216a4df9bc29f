import { constants as fsConstants, existsSync, type Stats } from 'node:fs';
import { lstat, open, opendir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';

// Loaded on first use (CommonJS build, so the call sites stay synchronous): an idle gateway never
// needs it, and every module loaded at startup counts against the idle-RSS budget.
let yamlLibModule: typeof import('yaml') | undefined;
const yamlLib = (): typeof import('yaml') => (yamlLibModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
import { GatewayError, ErrorCode } from '../../shared/errors.js';
import { envNameFor, type Limits } from '../../shared/limits.js';
import { isInside } from '../../shared/roots.js';
import type { CallContext, ToolDefinition } from '../../shared/tool-types.js';
import type { GatewayConfig } from '../config.js';

// Read-only re-implementation of Hermes' `skills_list` / `skill_view` (tools/skills_tool.py,
// agent/skill_utils.py) over `$HERMES_HOME/skills`. Same layout rules, frontmatter handling,
// result shapes and sort order; differences are deliberate and gateway-shaped:
// - nothing is ever written: a missing skills directory is reported, not created, and a view
//   does NOT bump Hermes' view/use counters (tools/skill_usage.py) or mark files as read;
// - every walk is bounded (limits.skillsMaxFiles directory entries) and never follows a symlink
//   whose real path leaves the skills directory (or, for linked files, the skill directory);
// - files are opened with O_NOFOLLOW|O_NONBLOCK, judged by fstat, and size-bounded before reading;
// - no SKILL.md preprocessing (template variables, inline shell), no plugin/external/project skill
//   directories, and required environment variables are checked against process.env only.

export type SkillsConfig = Pick<GatewayConfig, 'hermesHome' | 'limits'>;

export interface SkillSummary {
  name: string;
  description: string;
  category: string | null;
}

const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
/** config.yaml is read only for `skills.disabled`; anything larger is ignored for that purpose. */
const CONFIG_MAX_BYTES = 4 * 1024 * 1024;

const EXCLUDED_SKILL_DIRS = new Set([
  '.git', '.github', '.hub', '.archive', '.venv', 'venv', 'node_modules', 'site-packages', '__pycache__',
  '.tox', '.nox', '.pytest_cache', '.mypy_cache', '.ruff_cache',
]);
const SUPPORT_DIRS = ['references', 'templates', 'assets', 'scripts'] as const;
const SUPPORT_DIR_SET = new Set<string>(SUPPORT_DIRS);
const SKILL_FILE_EXTS = new Set(['.md', '.py', '.yaml', '.yml', '.json', '.tex', '.sh']);
/** (support dir, extensions or null for any file, recursive) — the order of `linked_files` keys. */
const LINKED_FILE_SPECS: ReadonlyArray<readonly [string, readonly string[] | null, boolean]> = [
  ['references', ['.md'], false],
  ['templates', ['.md', '.py', '.yaml', '.yml', '.json', '.tex', '.sh'], true],
  ['assets', null, true],
  ['scripts', ['.py', '.sh', '.bash', '.js', '.ts', '.rb'], false],
];
const ORG_MIRROR_DIR = '_org';
const ORG_ACTIVE_MARKER = '.active_org';
const PLATFORM_MAP: Record<string, string> = { macos: 'darwin', linux: 'linux', windows: 'win32' };
const ENV_VAR_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAMESPACE_RE = /^[a-zA-Z0-9_-]+$/;
const LOOKUP_HINT = 'Use a skill name or relative path within the skills directory.';

// O_NONBLOCK keeps open() of a FIFO from waiting for a writer; fstat then refuses it as not a file.
const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | (fsConstants.O_NONBLOCK ?? 0);

type Frontmatter = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Small helpers

function limitText(limits: Limits, key: keyof Limits): string {
  return `${key}=${limits[key]} (${envNameFor(key)})`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'skills call cancelled');
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/** Python-style code-point-ish ordering (never locale-dependent). */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortSkills(skills: SkillSummary[]): SkillSummary[] {
  return [...skills].sort((a, b) => cmp(a.category ?? '', b.category ?? '') || cmp(a.name, b.name));
}

class FileRefused extends Error {
  constructor(
    readonly reason: 'not_regular' | 'too_large' | 'symlink',
    readonly size?: number,
  ) {
    super(reason);
  }
}

/**
 * Reads a file without following a final symlink. `whole`: refuse (FileRefused 'too_large') when the
 * fstat size is above maxBytes, before reading; otherwise read at most maxBytes (a prefix).
 */
async function readBounded(path: string, maxBytes: number, mode: 'whole' | 'prefix', follow = false): Promise<{ bytes: Buffer; size: number }> {
  let handle;
  try {
    handle = await open(path, follow ? fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) : OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new FileRefused('symlink');
    if (code === 'ENXIO') throw new FileRefused('not_regular');
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new FileRefused('not_regular');
    if (mode === 'whole' && st.size > maxBytes) throw new FileRefused('too_large', st.size);
    const want = Math.min(st.size, maxBytes);
    const buffer = Buffer.alloc(want);
    let offset = 0;
    while (offset < want) {
      const { bytesRead } = await handle.read(buffer, offset, want - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return { bytes: buffer.subarray(0, offset), size: st.size };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Hermes reads skill text as utf-8-sig with errors="replace". */
function decodeLenient(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** Real path of `p` when it exists and stays inside `realRoot`; `null` otherwise. */
async function containedReal(p: string, realRoot: string): Promise<string | null> {
  try {
    const real = await realpath(p);
    return isInside(real, realRoot) ? real : null;
  } catch {
    return null;
  }
}

function parseYaml(text: string): unknown {
  // PyYAML (what Hermes uses) implements YAML 1.1 and keeps the last of duplicate keys.
  const doc = yamlLib().parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: 100 });
}

/** Hermes `parse_frontmatter`: `---` fence, YAML mapping, body after the closing fence. */
export function parseFrontmatter(content: string): { frontmatter: Frontmatter; body: string } {
  const text = content.startsWith('\ufeff') ? content.slice(1) : content;
  if (!text.startsWith('---')) return { frontmatter: {}, body: text };
  const rest = text.slice(3);
  const end = /\n---\s*\n/.exec(rest);
  if (!end) return { frontmatter: {}, body: text };
  const yamlText = rest.slice(0, end.index);
  const body = rest.slice(end.index + end[0].length);
  try {
    const parsed = parseYaml(yamlText);
    // Hermes falls back to hand-splitting `key: value` lines for malformed YAML; we do not
    // hand-parse YAML, so malformed frontmatter counts as absent.
    return { frontmatter: isRecord(parsed) ? parsed : {}, body };
  } catch {
    return { frontmatter: {}, body };
  }
}

function truncateDescription(description: string): string {
  return description.length <= MAX_DESCRIPTION_LENGTH ? description : description.slice(0, MAX_DESCRIPTION_LENGTH - 3) + '...';
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

function matchesPlatform(fm: Frontmatter): boolean {
  const platforms = fm.platforms;
  if (!platforms || (Array.isArray(platforms) && platforms.length === 0)) return true;
  return asList(platforms).some((p) => {
    const normalized = String(p).toLowerCase().trim();
    const mapped = PLATFORM_MAP[normalized] ?? normalized;
    return process.platform.startsWith(mapped);
  });
}

/** Offer-time relevance gate (listing only; an explicit skill_view bypasses it, as in Hermes). */
function matchesEnvironment(fm: Frontmatter): boolean {
  const environments = fm.environments;
  if (!environments || (Array.isArray(environments) && environments.length === 0)) return true;
  for (const env of asList(environments)) {
    const normalized = String(env).toLowerCase().trim();
    if (!normalized) continue;
    if (normalized === 'kanban') {
      if (process.env.HERMES_KANBAN_TASK || process.env.HERMES_KANBAN_BOARD) return true;
    } else if (normalized === 'docker') {
      if (existsSync('/.dockerenv') || existsSync('/run/.containerenv')) return true;
    } else if (normalized === 's6') {
      if (existsSync('/run/s6') || existsSync('/package/admin/s6-overlay')) return true;
    } else {
      return true; // unknown tags fail open
    }
  }
  return false;
}

/** Hermes `parse_config_string_list`: a list, a JSON/Python-literal list in a string, or one name. */
function configStringList(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') {
    if (value.trim().startsWith('[')) {
      try {
        const parsed = parseYaml(value.trim());
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

/** `skills.disabled` (plus `skills.platform_disabled[$HERMES_PLATFORM]`) from config.yaml. */
async function disabledSkillNames(hermesHome: string): Promise<Set<string>> {
  try {
    const { bytes } = await readBounded(join(hermesHome, 'config.yaml'), CONFIG_MAX_BYTES, 'whole', true);
    const parsed = parseYaml(decodeLenient(bytes));
    const skills = isRecord(parsed) ? parsed.skills : undefined;
    if (!isRecord(skills)) return new Set();
    const names = configStringList(skills.disabled);
    const platform = process.env.HERMES_PLATFORM || process.env.HERMES_SESSION_PLATFORM;
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

interface SkillsRoot {
  /** `$HERMES_HOME/skills` as configured (lexical). */
  dir: string;
  /** Its real path: the containment boundary for every symlink. */
  real: string;
}

interface SkillFile {
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

async function openRoot(hermesHome: string): Promise<SkillsRoot | { missing: string; reason: string }> {
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
async function walkSkills(root: SkillsRoot, maxEntries: number, signal?: AbortSignal, flatName?: string): Promise<WalkResult> {
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
      .filter((d) => !EXCLUDED_SKILL_DIRS.has(d.name) && !(hasSkillMd && SUPPORT_DIR_SET.has(d.name)))
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

async function readSkillHead(file: SkillFile, limits: Limits): Promise<string> {
  // Up to 4 bytes per character, then cut to the character budget.
  const { bytes } = await readBounded(file.real, limits.skillListReadChars * 4, 'prefix');
  return decodeLenient(bytes).slice(0, limits.skillListReadChars);
}

interface Listing {
  skills: SkillSummary[];
  missing?: string;
  truncated: boolean;
}

/** Hermes `_find_all_skills`: first-wins by name, disabled / off-platform / off-environment hidden. */
async function findAllSkills(config: SkillsConfig, signal?: AbortSignal): Promise<Listing> {
  const root = await openRoot(config.hermesHome);
  if ('missing' in root) return { skills: [], missing: root.reason, truncated: false };
  const disabled = await disabledSkillNames(config.hermesHome);
  const { skillFiles, truncated } = await walkSkills(root, config.limits.skillsMaxFiles, signal);
  const skills: SkillSummary[] = [];
  const seen = new Set<string>();
  for (const file of skillFiles) {
    checkAborted(signal);
    let head: string;
    try {
      head = await readSkillHead(file, config.limits);
    } catch {
      continue; // unreadable, FIFO, vanished: skipped like Hermes skips unreadable skills
    }
    const { frontmatter, body } = parseFrontmatter(head);
    if (!matchesPlatform(frontmatter) || !matchesEnvironment(frontmatter)) continue;
    const name = (typeof frontmatter.name === 'string' ? frontmatter.name : basename(dirname(file.md))).slice(0, MAX_NAME_LENGTH);
    if (seen.has(name) || disabled.has(name)) continue;
    let description = frontmatter.description == null ? '' : String(frontmatter.description);
    if (!description) {
      // First non-heading body line.
      description = body.trim().split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('#')) ?? '';
    }
    seen.add(name);
    skills.push({ name, description: truncateDescription(description), category: categoryOf(root, file.md) });
  }
  return { skills, truncated };
}

// ---------------------------------------------------------------------------------------------
// skills_list

async function skillsList(config: SkillsConfig, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
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

// ---------------------------------------------------------------------------------------------
// skill_view

function hasTraversal(p: string): boolean {
  return p.split(/[\\/]/).some((part) => part === '..');
}

function isAbsoluteAnywhere(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p);
}

function lookupPathError(name: string): string | null {
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

interface Candidate {
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

async function collectCandidates(root: SkillsRoot, name: string, localCategoryName: string | null, limits: Limits, signal?: AbortSignal): Promise<Candidate[]> {
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
    if (isInside(flat, root.dir) && !(await isSupportPath(root, flat))) {
      const real = await containedReal(flat, root.real);
      if (real && (await stat(real).then((s) => s.isFile(), () => false))) record({ skillDir: null, md: flat, real });
    }
  }
  // Recursive by directory name or frontmatter `name:` (skills_list shows the frontmatter name),
  // plus legacy flat `<name>.md` files anywhere outside skill support dirs.
  const bare = /[\\/]/.test(name) ? undefined : name;
  const { skillFiles, flatMatches } = await walkSkills(root, limits.skillsMaxFiles, signal, bare);
  for (const file of skillFiles) {
    checkAborted(signal);
    if (basename(dirname(file.md)) === name || (await frontmatterName(file, limits)) === name) {
      record({ skillDir: dirname(file.md), md: file.md, real: file.real });
    }
  }
  for (const file of flatMatches) record({ skillDir: null, md: file.md, real: file.real });
  return candidates;
}

function parseTags(value: unknown): string[] {
  if (!value) return [];
  if (Array.isArray(value)) return value.filter((t) => t !== null && t !== undefined && t !== '' && t !== false && t !== 0).map((t) => String(t).trim());
  let text = String(value).trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  return text
    .split(',')
    .filter((t) => t.trim())
    .map((t) => t.trim().replace(/^["']+|["']+$/g, ''));
}

function cleanStr(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function asDictList(raw: unknown): unknown[] {
  return isRecord(raw) ? [raw] : Array.isArray(raw) ? raw : [];
}

export interface RequiredEnv {
  name: string;
  prompt: string;
  help?: string;
  required_for?: string;
  optional?: true;
}

/** Hermes `_get_required_environment_variables`: declared + setup.collect_secrets + legacy prerequisites. */
export function requiredEnvironmentVariables(fm: Frontmatter): RequiredEnv[] {
  const setup = isRecord(fm.setup) ? fm.setup : {};
  const setupHelp = cleanStr(setup.help);
  const prereqs = fm.prerequisites;
  let legacy: unknown = (isRecord(prereqs) ? prereqs.env_vars : undefined) || [];
  if (typeof legacy === 'string') legacy = [legacy];
  const entries: Array<Record<string, unknown>> = [];
  for (const item of asDictList(fm.required_environment_variables)) {
    if (typeof item === 'string') entries.push({ name: item });
    else if (isRecord(item)) entries.push(item);
  }
  for (const item of asDictList(setup.collect_secrets)) {
    if (!isRecord(item)) continue;
    const url = String(item.provider_url || item.url || '').trim() || undefined;
    entries.push({ name: item.env_var, prompt: item.prompt, url });
  }
  if (Array.isArray(legacy)) for (const v of legacy) if (String(v).trim()) entries.push({ name: String(v) });

  const required = new Map<string, RequiredEnv>();
  for (const entry of entries) {
    const envName = String(entry.name || entry.env_var || '').trim();
    if (!envName || required.has(envName) || !ENV_VAR_NAME_RE.test(envName)) continue;
    const normalized: RequiredEnv = { name: envName, prompt: String(entry.prompt || `Enter value for ${envName}`).trim() };
    const help = cleanStr(entry.help || entry.provider_url || entry.url || setupHelp);
    if (help) normalized.help = help;
    const requiredFor = cleanStr(entry.required_for);
    if (requiredFor) normalized.required_for = requiredFor;
    if (entry.optional) normalized.optional = true;
    required.set(envName, normalized);
  }
  return [...required.values()];
}

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

async function linkedFiles(skillDir: string, realSkillDir: string, limits: Limits, signal?: AbortSignal): Promise<Record<string, string[]>> {
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

function looksBinary(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

async function serveSkillFile(skillDir: string, filePath: string, label: string, config: SkillsConfig, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const hint = 'Use a relative path within the skill directory';
  if (filePath.includes('\0') || hasTraversal(filePath)) {
    throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, "Path traversal ('..') is not allowed.", { hint });
  }
  if (isAbsoluteAnywhere(filePath)) {
    throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, `file_path must be relative to the skill directory, got ${JSON.stringify(filePath)}`, { hint });
  }
  const realSkillDir = await realpath(skillDir);
  const target = join(skillDir, filePath);
  const notFound = async () =>
    new GatewayError(ErrorCode.SKILL_NOT_FOUND, `File '${filePath}' not found in skill '${label}'.`, {
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
      throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, `file_path ${JSON.stringify(filePath)} is a symlink that does not resolve inside the skill directory.`, { hint });
    }
    throw await notFound();
  }
  if (!isInside(real, realSkillDir)) {
    throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, `file_path ${JSON.stringify(filePath)} resolves outside the skill directory.`, { hint });
  }
  let read: { bytes: Buffer; size: number };
  try {
    read = await readBounded(real, config.limits.skillViewMaxBytes, 'whole');
  } catch (e) {
    if (e instanceof FileRefused && e.reason === 'too_large') {
      throw new GatewayError(
        ErrorCode.SKILL_FILE_TOO_LARGE,
        `File '${filePath}' in skill '${label}' is ${e.size} bytes, above ${limitText(config.limits, 'skillViewMaxBytes')}; it was not read.`,
        { reason: 'too_large', bytes: e.size },
      );
    }
    if (e instanceof FileRefused || (e as NodeJS.ErrnoException).code === 'ENOENT') throw await notFound();
    throw new GatewayError(ErrorCode.SKILL_READ_FAILED, `Failed to read file '${filePath}' in skill '${label}': ${(e as Error).message}`);
  }
  const text = looksBinary(read.bytes);
  if (text === null) {
    return { success: true, name: label, file: filePath, is_binary: true, content: `[Binary file: ${basename(real)}, size: ${read.size} bytes]` };
  }
  return { success: true, name: label, file: filePath, content: text.startsWith('\ufeff') ? text.slice(1) : text, file_type: extname(target) };
}

async function skillView(config: SkillsConfig, args: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const name = typeof args.name === 'string' ? args.name : '';
  const filePath = typeof args.file_path === 'string' && args.file_path !== '' ? args.file_path : undefined;
  const lookupError = lookupPathError(name);
  if (lookupError) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, lookupError, { hint: LOOKUP_HINT });

  // `plugin:skill` — plugin skills are not served by the gateway; like Hermes when no such plugin
  // exists, the qualified form falls through to the on-disk `category/skill` layout.
  let localCategoryName: string | null = null;
  if (name.includes(':')) {
    const idx = name.indexOf(':');
    const namespace = name.slice(0, idx);
    const bare = name.slice(idx + 1);
    if (!NAMESPACE_RE.test(namespace)) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `Invalid namespace '${namespace}' in '${name}'. Namespaces must match [a-zA-Z0-9_-]+.`);
    }
    localCategoryName = bare ? `${namespace}/${bare}` : null;
    const err = localCategoryName ? lookupPathError(localCategoryName) : null;
    if (err) throw new GatewayError(ErrorCode.SKILL_PATH_INVALID, err, { hint: LOOKUP_HINT });
  }

  const root = await openRoot(config.hermesHome);
  if ('missing' in root) {
    throw new GatewayError(ErrorCode.SKILL_NOT_FOUND, `Skill '${name}' not found. ${root.reason}`, { available_skills: [] });
  }
  const candidates = await collectCandidates(root, name, localCategoryName, config.limits, signal);
  if (candidates.length > 1) {
    throw new GatewayError(
      ErrorCode.SKILL_AMBIGUOUS,
      `Ambiguous skill name '${name}': ${candidates.length} skills match in the skills directory. Refusing to guess — load one explicitly by its categorized path.`,
      {
        matches: candidates.map((c) => c.md),
        hint: "Pass the full relative path instead of the bare name (e.g., 'category/skill-name'), or rename one of the colliding skills so each name is unique.",
      },
    );
  }
  const found = candidates[0];
  if (!found) {
    const available = sortSkills((await findAllSkills(config, signal)).skills).slice(0, 20).map((s) => s.name);
    throw new GatewayError(ErrorCode.SKILL_NOT_FOUND, `Skill '${name}' not found.`, {
      available_skills: available,
      hint: 'Use skills_list to see all available skills',
    });
  }

  let content: string;
  try {
    content = decodeLenient((await readBounded(found.real, config.limits.skillViewMaxBytes, 'whole')).bytes);
  } catch (e) {
    if (e instanceof FileRefused && e.reason === 'too_large') {
      throw new GatewayError(
        ErrorCode.SKILL_FILE_TOO_LARGE,
        `Skill file ${found.md} is ${e.size} bytes, above ${limitText(config.limits, 'skillViewMaxBytes')}; it was not read.`,
        { reason: 'too_large', bytes: e.size },
      );
    }
    throw new GatewayError(ErrorCode.SKILL_READ_FAILED, `Failed to read skill '${name}': ${(e as Error).message}`);
  }
  if (content.startsWith('\ufeff')) content = content.slice(1);
  const { frontmatter } = parseFrontmatter(content);
  if (!matchesPlatform(frontmatter)) {
    throw new GatewayError(ErrorCode.SKILL_UNSUPPORTED, `Skill '${name}' is not supported on this platform.`, { readiness_status: 'unsupported' });
  }
  const resolvedName = typeof frontmatter.name === 'string' ? frontmatter.name : basename(dirname(found.md));
  if ((await disabledSkillNames(config.hermesHome)).has(resolvedName)) {
    throw new GatewayError(ErrorCode.SKILL_DISABLED, `Skill '${resolvedName}' is disabled. Enable it with \`hermes skills\` or inspect the files directly on disk.`, {
      reason: 'disabled',
    });
  }

  if (filePath !== undefined && found.skillDir) {
    return serveSkillFile(found.skillDir, filePath, name, config, signal);
  }

  const metadata = frontmatter.metadata;
  const hermesMeta = isRecord(metadata) && isRecord(metadata.hermes) ? metadata.hermes : {};
  const tags = parseTags(hermesMeta.tags || frontmatter.tags || '');
  const relatedSkills = parseTags(hermesMeta.related_skills || frontmatter.related_skills || '');
  const linked = found.skillDir ? await linkedFiles(found.skillDir, await realpath(found.skillDir), config.limits, signal) : {};
  const hasLinked = Object.keys(linked).length > 0;
  const skillName =
    typeof frontmatter.name === 'string' ? frontmatter.name : found.skillDir ? basename(found.skillDir) : basename(found.md, extname(found.md));

  const required = requiredEnvironmentVariables(frontmatter);
  const missing = required.filter((e) => !e.optional && !process.env[e.name]).map((e) => e.name);
  const setupNeeded = missing.length > 0;
  const result: Record<string, unknown> = {
    success: true,
    name: skillName,
    description: frontmatter.description ?? '',
    tags,
    related_skills: relatedSkills,
    content,
    path: toPosix(relative(root.dir, found.md)),
    skill_dir: found.skillDir,
    linked_files: hasLinked ? linked : null,
    usage_hint: hasLinked
      ? "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'"
      : null,
    required_environment_variables: required,
    required_commands: [],
    missing_required_environment_variables: missing,
    missing_required_commands: [],
    setup_needed: setupNeeded,
    setup_skipped: false,
    readiness_status: setupNeeded ? 'setup_needed' : 'available',
  };
  const setupHelp = required.find((e) => e.help)?.help;
  if (setupHelp) result.setup_help = setupHelp;
  if (setupNeeded) {
    result.gateway_setup_hint =
      `Secure secret entry is not available through the MCP gateway. Set ${missing.join(', ')} in the environment the Hermes tools run with (e.g. ${join(config.hermesHome, '.env')}).`;
    const note = `Setup needed before using this skill: missing ${missing.map((n) => `env $${n}`).join(', ')}.`;
    result.setup_note = setupHelp ? `${note} ${setupHelp}` : note;
  }
  if (frontmatter.compatibility) result.compatibility = frontmatter.compatibility;
  if (isRecord(metadata)) result.metadata = metadata;
  // Hermes bumps view/use counters here (tools/skill_usage.py); the gateway is read-only and does not.
  return result;
}

// ---------------------------------------------------------------------------------------------
// Tool definitions

export function skillsTools(config: SkillsConfig): ToolDefinition[] {
  const annotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true } as const;
  return [
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
}
