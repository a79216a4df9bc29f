import { lstat } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../../../shared/errors.js';
import { assertEncodable, BOM, detectLineEnding, isNotFound, normalizeLineEndings, readRawText } from '../../common/index.js';
import { boundaryNote, fuzzyFindAndReplace, noMatchHint, type StrategyName } from '../fuzzy/index.js';
import { unifiedDiff, fileDiff } from '../unified-diff.js';
import type { Hunk, PatchOperation } from './parse.js';

// Simulation: the V4A validation phase. Every operation is applied in order to an in-memory overlay
// and every problem collected; applyV4a (v4a.ts) writes only when none was found.

/** A file as it will be after the operations so far. */
interface SimFile {
  content: string;
  bom: boolean;
  crlf: boolean;
  mode?: number;
  /** The untouched original bytes while the content is unchanged (a pure Move keeps them exactly). */
  pristine?: { content: string; bytes: Buffer };
}

export interface Original {
  exists: boolean;
  bytes?: Buffer;
  mode?: number;
}

export interface ResolvedOperation extends PatchOperation {
  /** Absolute real path of filePath / newPath. */
  absPath: string;
  absNewPath?: string;
}

type ErrorKind = 'no_match' | 'ambiguous' | 'invalid';

export interface ValidationError {
  kind: ErrorKind;
  message: string;
}

const RAW_READ_MAX_BYTES = 10 * 1024 * 1024;

/** Overlapping occurrence count (upstream `_count_occurrences`). */
function countOccurrences(text: string, pattern: string): number {
  if (pattern === '') return text.length + 1;
  let n = 0;
  for (let i = text.indexOf(pattern); i !== -1; i = text.indexOf(pattern, i + 1)) n++;
  return n;
}

function splitHunk(h: Hunk): { search: string[]; replace: string[] } {
  return {
    search: h.lines.filter((l) => l.prefix !== '+').map((l) => l.content),
    replace: h.lines.filter((l) => l.prefix !== '-').map((l) => l.content),
  };
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function encodeSim(f: SimFile): Buffer {
  if (f.pristine && f.pristine.content === f.content) return f.pristine.bytes;
  const body = f.crlf ? normalizeLineEndings(f.content, '\r\n') : f.content;
  return Buffer.from((f.bom ? BOM : '') + body, 'utf8');
}

/** How a simulation follows the Hermes the gateway fronts (release.ts). */
export interface SimulationOptions {
  /** patchStricterFuzzy: Hermes 0.22's fuzzy chain and its notes. */
  stricter?: boolean;
  /** patchV4aAbsoluteHeaders: an Add must create a new file. */
  addMustCreate?: boolean;
}

export class Simulation {
  constructor(private readonly options: SimulationOptions = {}) {}

  /** Hermes 0.22's notes, one per file whose hunks a similarity strategy placed. */
  readonly notes: string[] = [];
  readonly state = new Map<string, SimFile | null>();
  readonly originals = new Map<string, Original>();
  readonly errors: ValidationError[] = [];
  readonly diffs: string[] = [];
  realChanges = 0;

  private async loadOriginal(abs: string, label: string): Promise<{ file: SimFile | null; error?: string }> {
    try {
      const raw = await readRawText(label, abs, RAW_READ_MAX_BYTES);
      this.originals.set(abs, { exists: true, bytes: raw.bytes, mode: raw.mode });
      return {
        file: { content: raw.content, bom: raw.hadBom, crlf: detectLineEnding(raw.content) === '\r\n', mode: raw.mode, pristine: { content: raw.content, bytes: raw.bytes } },
      };
    } catch (e) {
      if (e instanceof GatewayError && e.code === ErrorCode.FILE_NOT_FOUND) {
        this.originals.set(abs, { exists: false });
        return { file: null, error: 'file not found' };
      }
      return { file: null, error: (e as Error).message };
    }
  }

  /** The file's simulated content, or why it cannot be read. */
  async read(abs: string, label: string): Promise<{ file: SimFile | null; error?: string }> {
    if (this.state.has(abs)) {
      const f = this.state.get(abs)!;
      return f ? { file: f } : { file: null, error: 'file not found' };
    }
    return this.loadOriginal(abs, label);
  }

  /** Why `abs` is not free for an Add / Move destination, or null. */
  async occupied(abs: string): Promise<string | null> {
    if (this.state.has(abs)) return this.state.get(abs) ? 'exists' : null;
    try {
      await lstat(abs);
    } catch (e) {
      if (isNotFound(e)) {
        this.originals.set(abs, { exists: false });
        return null;
      }
      return `could not confirm the path is free — ${(e as Error).message}`;
    }
    return 'exists';
  }

  private error(kind: ErrorKind, message: string): void {
    this.errors.push({ kind, message });
  }

  async update(op: ResolvedOperation): Promise<void> {
    const { file, error } = await this.read(op.absPath, op.filePath);
    if (!file) {
      this.error('invalid', `${op.filePath}: ${error}`);
      return;
    }
    const before = file.content;
    let content = before;
    let hunkIndex = 0;
    const strategies: StrategyName[] = [];
    const fuzzy = { stricter: this.options.stricter === true };
    for (const hunk of op.hunks) {
      hunkIndex++;
      const { search, replace } = splitHunk(hunk);
      if (sameLines(search, replace)) {
        // Context-only anchor hunks are inert; identical -/+ lines are a no-op.
        if (hunk.lines.some((l) => l.prefix !== ' ')) this.realChanges++;
        continue;
      }
      this.realChanges++;
      const replacement = replace.join('\n');
      if (search.length === 0) {
        // Addition-only: placed after the (unique) context hint, or appended at the end.
        if (hunk.contextHint) {
          const n = countOccurrences(content, hunk.contextHint);
          if (n === 0) {
            this.error('no_match', `${op.filePath}: addition-only hunk context hint '${hunk.contextHint}' not found`);
            continue;
          }
          if (n > 1) {
            this.error('ambiguous', `${op.filePath}: addition-only hunk context hint '${hunk.contextHint}' is ambiguous (${n} occurrences)`);
            continue;
          }
          const eol = content.indexOf('\n', content.indexOf(hunk.contextHint));
          content = eol === -1 ? `${content}\n${replacement}` : `${content.slice(0, eol + 1)}${replacement}\n${content.slice(eol + 1)}`;
        } else {
          content = `${content.replace(/\n+$/, '')}\n${replacement}\n`;
        }
        continue;
      }
      const searchPattern = search.join('\n');
      let result = fuzzyFindAndReplace(content, searchPattern, replacement, false, fuzzy);
      if (!result.ok && hunk.contextHint) {
        // Retry inside a window around the hint (what upstream's apply phase does).
        const at = content.indexOf(hunk.contextHint);
        if (at !== -1) {
          const ws = Math.max(0, at - 500);
          const we = Math.min(content.length, at + 2000);
          const windowed = fuzzyFindAndReplace(content.slice(ws, we), searchPattern, replacement, false, fuzzy);
          if (windowed.ok) result = { ...windowed, content: content.slice(0, ws) + windowed.content + content.slice(we) };
        }
      }
      if (result.ok) {
        content = result.content;
        strategies.push(result.strategy);
        continue;
      }
      const label = hunk.contextHint ? `'${hunk.contextHint}'` : '(no hint)';
      this.error(
        result.kind === 'ambiguous' ? 'ambiguous' : result.kind === 'no_match' ? 'no_match' : 'invalid',
        `${op.filePath}: hunk ${hunkIndex} ${label} not found — ${result.error}${noMatchHint(result.error, searchPattern, content)}`,
      );
    }
    this.state.set(op.absPath, { ...file, content });
    this.diffs.push(fileDiff(op.filePath, before, content));
    const note = this.options.stricter ? boundaryNote(strategies, "the hunk's", ` in ${op.filePath}`) : null;
    if (note && !this.notes.includes(note)) this.notes.push(note);
  }

  async add(op: ResolvedOperation): Promise<void> {
    this.realChanges++;
    const taken = await this.occupied(op.absPath);
    // An Add over an existing file replaces it, as upstream's write_file does: keeping its BOM and
    // CRLF line endings, and its mode.
    let existing: SimFile | null = null;
    if (taken === 'exists' && this.options.addMustCreate) {
      this.error('invalid', `${op.filePath}: file already exists — use Update File, not Add File`);
      return;
    }
    if (taken === 'exists') {
      const { file, error } = await this.read(op.absPath, op.filePath);
      if (!file) {
        this.error('invalid', `${op.filePath}: ${error}`);
        return;
      }
      existing = file;
    } else if (taken) {
      this.error('invalid', `${op.filePath}: ${taken}`);
      return;
    }
    const added = op.hunks.flatMap((h) => h.lines.filter((l) => l.prefix === '+').map((l) => l.content));
    const content = added.join('\n');
    try {
      assertEncodable(op.filePath, content);
    } catch (e) {
      this.error('invalid', (e as Error).message);
      return;
    }
    this.state.set(op.absPath, { content, bom: existing?.bom ?? false, crlf: existing?.crlf ?? false, ...(existing?.mode !== undefined ? { mode: existing.mode } : {}) });
    this.diffs.push(`--- /dev/null\n+++ b/${op.filePath}\n` + added.map((l) => `+${l}`).join('\n'));
  }

  async delete(op: ResolvedOperation): Promise<void> {
    this.realChanges++;
    const { file, error } = await this.read(op.absPath, op.filePath);
    if (!file) {
      this.error('invalid', error === 'file not found' ? `${op.filePath}: file not found for deletion` : `${op.filePath}: cannot delete — ${error}`);
      return;
    }
    this.state.set(op.absPath, null);
    this.diffs.push(unifiedDiff(`a/${op.filePath}`, '/dev/null', file.content, '') || `# Deleted: ${op.filePath}`);
  }

  async move(op: ResolvedOperation): Promise<void> {
    this.realChanges++;
    const { file, error } = await this.read(op.absPath, op.filePath);
    if (!file) {
      this.error('invalid', error === 'file not found' ? `${op.filePath}: source file not found for move` : `${op.filePath}: cannot move — ${error}`);
    }
    const taken = await this.occupied(op.absNewPath!);
    if (taken === 'exists') {
      this.error('invalid', `${op.newPath}: destination already exists — move would overwrite`);
      return;
    }
    if (taken) {
      this.error('invalid', `${op.newPath}: ${taken}`);
      return;
    }
    if (!file) return;
    this.state.set(op.absNewPath!, { ...file });
    this.state.set(op.absPath, null);
    this.diffs.push(`# Moved: ${op.filePath} -> ${op.newPath}`);
  }
}
