import { accessSync, constants as fsConstants } from 'node:fs';
import { stat } from 'node:fs/promises';
import { delimiter, extname, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { defaultLimits } from '../../../../shared/limits.js';
import { REDACTION_MARKER_RE } from '../../../core/result.js';
import { readHermesConfig } from '../../../platform/hermes-config.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import { yamlSyntaxError } from '../../../platform/yaml.js';
import type { CheckedPath, HermesDirs, PathDeps } from '../access/index.js';
import { follows, hasBinaryExtension } from '../common/index.js';
import type { FileStates } from '../state/index.js';
import { binaryDocumentRefusal, protectedInstructionConfig, protectedInstructionReason, protectedInstructionRefusal, sshConfigRefusal } from './blocks.js';
import { checkedInPython, PYTHON_CHECKED, pythonGateRefusal, pythonLint, pythonLintDelta, refineDelta, type Lint, type LintDeps } from './lint.js';

// What write_file and patch both check of an edit: the syntax tier (`lint`, lint.ts for what
// Hermes' own linters check), the fail-closed gate for JSON/YAML/TOML that does not parse, added
// redaction markers, JSON's NaN/Infinity (Hermes 0.22), and 0.22's document, agent-instruction
// and SSH-config refusals.

/** Upstream's shell linters, by extension: the command each needs on PATH (not run by the gateway). */
const SHELL_LINTERS: Readonly<Record<string, string>> = { '.js': 'node', '.ts': 'npx', '.go': 'go', '.rs': 'rustfmt' };

/** The search path when the caller names none (the gateway's own default for PATH). */
const DEFAULT_SEARCH_PATH = '/usr/bin:/bin';

const onPathCache = new Map<string, boolean>();

/** Whether `command` is an executable file in a `searchPath` directory (upstream's `command -v`). */
function onPath(command: string, searchPath: string): boolean {
  const key = `${searchPath}\0${command}`;
  let found = onPathCache.get(key);
  if (found === undefined) {
    found = searchPath.split(delimiter).some((dir) => {
      if (dir === '') return false;
      try {
        accessSync(join(dir, command), fsConstants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    onPathCache.set(key, found);
  }
  return found;
}

/** Why `content` does not parse as the structured format of `ext` (JSON, YAML), '' when it does; null: not such a format. */
export function structuredSyntaxError(ext: string, content: string): string | null {
  if (ext === '.json') {
    // Python's json.loads refuses a str that starts with a BOM.
    if (content.startsWith('\uFEFF')) return 'JSONDecodeError: Unexpected UTF-8 BOM (decode using utf-8-sig) (line 1, column 1)';
    try {
      // Python's json.loads takes NaN, Infinity and -Infinity as numbers.
      JSON.parse(withoutJsonConstants(content).text);
      return '';
    } catch (e) {
      return `JSONDecodeError: ${(e as Error).message}`;
    }
  }
  if (ext === '.yaml' || ext === '.yml') {
    // Syntax only, like upstream's yaml.parse scan (yaml.ts loads the parser on first use).
    const error = yamlSyntaxError(content);
    return error === undefined ? '' : `YAMLError: ${error}`;
  }
  return null;
}

/** Upstream `_check_lint` on a file path (its extension) and the content it has. */
export function lintOf(path: string, content: string | null, searchPath = DEFAULT_SEARCH_PATH): Lint {
  const ext = extname(path).toLowerCase();
  const shell = SHELL_LINTERS[ext];
  // Upstream reports a linter missing from PATH as skipped; one that is there the gateway does not run.
  if (shell !== undefined && !onPath(shell, searchPath)) return { status: 'skipped', message: `${shell} not available` };
  if (shell !== undefined) return { status: 'skipped', message: `Syntax checks of ${ext} files are not run by the gateway` };
  if (PYTHON_CHECKED.has(ext)) return { status: 'skipped', message: `Syntax checks of ${ext} files are not available here` };
  if (ext !== '.json' && ext !== '.yaml' && ext !== '.yml') return { status: 'skipped', message: `No linter for ${ext} files` };
  if (content === null) return { status: 'skipped', message: `Failed to read ${path} for lint` };
  const error = structuredSyntaxError(ext, content)!;
  return error === '' ? { status: 'ok', output: '' } : { status: 'error', output: error };
}

/**
 * Upstream `_check_lint_delta`: the lint of the new content; when it fails and the old content
 * failed too, only the errors this edit introduced (or a note that they were all there before).
 */
export function lintDelta(path: string, before: string | null, after: string, searchPath = DEFAULT_SEARCH_PATH): Lint {
  return refineDelta(lintOf(path, after, searchPath), () => (before === null ? null : lintOf(path, before, searchPath)));
}

/** lintDelta, with Python and TOML checked in Python (lint.ts): what write_file and patch report. */
export async function lintDeltaOf(deps: EditDeps, path: string, before: string | null, after: string, signal?: AbortSignal): Promise<Lint> {
  if (checkedInPython(deps, extname(path).toLowerCase())) return pythonLintDelta({ ...deps, ...(signal ? { signal } : {}) }, path, before, after);
  return lintDelta(path, before, after, deps.searchPath);
}

/** lintOf, with Python and TOML checked in Python (lint.ts): a V4A patch's files as they are now. */
export async function lintNow(deps: EditDeps, path: string, content: string | null, signal?: AbortSignal): Promise<Lint> {
  if (checkedInPython(deps, extname(path).toLowerCase())) return pythonLint({ ...deps, ...(signal ? { signal } : {}) }, path, content);
  return lintOf(path, content, deps.searchPath);
}

/**
 * The fail-closed gate as the gateway runs it: JSON/YAML/TOML through Hermes' own linters where they
 * are checked in Python (lint.ts), else JSON/YAML parsed here. The refusal message, or null.
 */
export async function gateRefusal(deps: EditDeps, path: string, content: string, signal?: AbortSignal): Promise<string | null> {
  if (checkedInPython(deps, extname(path).toLowerCase())) return pythonGateRefusal({ ...deps, ...(signal ? { signal } : {}) }, path, content);
  return structuredGateRefusal(path, content);
}

function structuredGateRefusal(path: string, content: string): string | null {
  const ext = extname(path).toLowerCase();
  const error = structuredSyntaxError(ext, content);
  if (!error) return null;
  return `Refusing to write '${path}': candidate content fails ${ext} syntax validation (${error}). The file was NOT created or modified. Fix the content and retry.`;
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The first redaction marker `after` holds more often than `before` (one the edit adds), or null. */
export function addedRedactionMarker(before: string, after: string): string | null {
  if (!REDACTION_MARKER_RE.test(after)) return null;
  const counts = new Map<string, number>();
  for (const m of after.matchAll(new RegExp(REDACTION_MARKER_RE.source, 'gu'))) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  for (const [marker, n] of counts) if (n > occurrences(before, marker)) return marker;
  return null;
}

/**
 * Refuses an edit that would leave `path` holding a redaction marker more often than it does now
 * (CONTENT_HAS_REDACTION_MARKER): such text was copied from a masked read, and writing it would put
 * the marker where the secret is. A file that holds marker text itself (documentation of the
 * markers) can still be edited, as long as the edit adds none.
 */
export function assertNoAddedRedactionMarker(tool: string, path: string, before: string, after: string): void {
  const marker = addedRedactionMarker(before, after);
  if (marker === null) return;
  throw new GatewayError(
    ErrorCode.CONTENT_HAS_REDACTION_MARKER,
    `${tool}: refusing to write '${path}': the new text contains ${marker}, the marker the gateway shows in place of a secret when it reads a file out. ` +
      'Writing it back would replace the real secret on disk with the marker. Edit around the secret instead: change only the lines you mean to change ' +
      "(patch with an old_string/new_string that leave the secret's line out), and never copy the marked line into new content.",
    tool === 'patch' ? { success: false } : {},
  );
}

/** What write_file and patch need from their host besides paths: the Hermes they follow, the per-task file states. */
export interface EditDeps extends PathDeps, Omit<LintDeps, 'signal'> {
  /** The Hermes followed (release.ts); the newest the gateway knows when absent. */
  release?: HermesRelease;
  /** Per-task file states (state/): write_file's read-before-overwrite guard. */
  fileStates?: FileStates;
  /** The largest Hermes config.yaml read for its write guards (`hermesConfigMaxBytes`); the default limit when absent. */
  hermesConfigMaxBytes?: number;
}

/**
 * Hermes 0.22's guards before a write (write_file_tool's order after the sensitive-path check):
 * binary documents, protected agent-instruction files, the SSH client config. Throws FILE_BLOCKED.
 */
/** A path an edit writes: as given, as checked, whether text is written to it, the Hermes directories it was judged by. */
export interface WriteTarget {
  input: string;
  checked: CheckedPath;
  text: boolean;
  dirs: HermesDirs;
}

export async function assertNewerWriteGuards(deps: EditDeps, targets: ReadonlyArray<WriteTarget>): Promise<void> {
  if (follows(deps, 'fileWriteDocumentGuards')) {
    for (const { input, checked, text } of targets) {
      if (!text) continue;
      const exists = (await stat(checked.real).catch(() => null))?.isFile() === true;
      const refusal = binaryDocumentRefusal(input, exists, hasBinaryExtension);
      if (refusal) throw new GatewayError(ErrorCode.FILE_BLOCKED, refusal);
    }
  }
  if (follows(deps, 'fileWriteProtectedInstructions')) {
    const { enabled, extra } = protectedInstructionConfig(readHermesConfig(deps.hermesHome, deps.hermesConfigMaxBytes ?? defaultLimits().hermesConfigMaxBytes).doc);
    const labels = enabled ? targets.map((t) => protectedInstructionReason(t.checked, t.dirs, extra)).filter((l): l is string => l !== null) : [];
    if (labels.length > 0) throw new GatewayError(ErrorCode.FILE_BLOCKED, protectedInstructionRefusal(labels));
  }
  if (follows(deps, 'fileWriteSshConfigApproval')) {
    const refusal = sshConfigRefusal(targets);
    if (refusal) throw new GatewayError(ErrorCode.FILE_BLOCKED, refusal);
  }
}

/** JSON text with NaN, Infinity and -Infinity outside strings read as 0 (as Python's json reads them, as numbers), and the first of them. */
function withoutJsonConstants(text: string): { text: string; first: string | null } {
  if (!text.includes('NaN') && !text.includes('Infinity')) return { text, first: null };
  let first: string | null = null;
  const out = text.replace(/"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g, (m, constant: string | undefined) => {
    if (constant === undefined) return m;
    first ??= constant;
    return '0';
  });
  return { text: out, first };
}

/** Hermes `_json_nonstandard_constant`: the first NaN/Infinity/-Infinity of otherwise valid JSON, else null. */
export function jsonNonstandardConstant(text: string): string | null {
  const { text: strict, first } = withoutJsonConstants(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (first === null) return null;
  try {
    JSON.parse(strict);
  } catch {
    return null; // unparseable text has no constant to report
  }
  return first;
}

/** Hermes `_refuse_introduced_json_constant`: a JSON write that brings in NaN/Infinity (one already there keeps being accepted). */
export function jsonConstantRefusal(path: string, content: string, before: string | null): string | null {
  const constant = jsonNonstandardConstant(content);
  if (constant === null || (before !== null && jsonNonstandardConstant(before) !== null)) return null;
  return `Refusing to write '${path}': candidate content uses ${constant}, which is not valid JSON. The file was NOT created or modified. Use null or a string instead and retry.`;
}
