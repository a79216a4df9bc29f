import { lstat, unlink } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { assertEncodable, atomicWrite, BOM, detectLineEnding, ensureParentDirs, isNotFound, normalizeLineEndings, readRawText, removeCreatedDirs } from './fs-util.js';
import { fuzzyFindAndReplace, isAlreadyApplied, noMatchHint } from './fuzzy-match.js';
import { unifiedDiff, fileDiff } from './unified-diff.js';

// V4A patches (tools/patch_parser.py): the multi-file format used by codex/cline.
//
//   *** Begin Patch
//   *** Update File: src/app.py          hunks: optional `@@ hint @@`, then ` ctx` / `-old` / `+new`
//   *** Add File: notes.txt              every line `+`
//   *** Delete File: old.txt
//   *** Move File: a.txt -> b.txt
//   *** End Patch
//
// Parsing follows upstream (markers must start the line, CRLF tolerated, `*** End of File` skipped,
// `*** Move to:` refused, `\ No newline` skipped, an unprefixed line is context). One deliberate
// difference: a completely empty line inside an Update hunk is an empty context line (editors strip
// the lone space of a blank context line), and empty lines ending a hunk are dropped as separators;
// upstream silently drops every empty line, which makes such hunks unmatchable.
//
// Applying is all-or-nothing: every operation is simulated in order against an overlay (so a later
// operation sees earlier ones, e.g. an Update of a file an earlier Move created), every problem is
// collected, and nothing is written unless all of it validates. The final contents are then written
// (atomically, per file) and deletions done; if any write fails, everything already written is
// restored from the original bytes and any directories created are removed. Because every touched
// file's original bytes are held for that rollback, operations apply to text files of at most
// 10 MiB (upstream, too, cannot Update/Delete/Move a binary file through V4A).

export type OperationType = 'add' | 'update' | 'delete' | 'move';

export interface HunkLine {
  prefix: ' ' | '-' | '+';
  content: string;
  /** Came from a completely empty patch line (a separator when it ends a hunk). */
  blank?: boolean;
}

export interface Hunk {
  contextHint: string | null;
  lines: HunkLine[];
}

export interface PatchOperation {
  operation: OperationType;
  filePath: string;
  newPath?: string;
  hunks: Hunk[];
}

const BEGIN_MARKER = /^\*\*\*\s*Begin\s+Patch\s*$/;
const END_MARKER = /^\*\*\*\s*End\s+Patch\s*$/;
const OP_MARKERS: ReadonlyArray<readonly [OperationType, RegExp]> = [
  ['update', /^\*\*\*\s*Update\s+File:\s*(.+)/],
  ['add', /^\*\*\*\s*Add\s+File:\s*(.+)/],
  ['delete', /^\*\*\*\s*Delete\s+File:\s*(.+)/],
  ['move', /^\*\*\*\s*Move\s+File:\s*(.+?)\s*->\s*(.+)/],
];
const HINT_RE = /^@@\s*(.+?)\s*@@/;
const EOF_MARKER = /^\*\*\*\s*End\s+of\s+File\s*$/;
const MOVE_TO_MARKER = /^\*\*\*\s*Move\s+to:\s*(.*)$/;

export function parseV4aPatch(text: string): { operations: PatchOperation[]; error: string | null } {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let startIdx = -1;
  let endIdx = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (BEGIN_MARKER.test(lines[i]!)) startIdx = i;
    else if (END_MARKER.test(lines[i]!)) {
      endIdx = i;
      break;
    }
  }
  const operations: PatchOperation[] = [];
  const errors: string[] = [];
  let op: PatchOperation | null = null;
  let hunk: Hunk | null = null;

  const flushHunk = (): void => {
    if (!op || !hunk) return;
    while (hunk.lines.length > 0 && hunk.lines[hunk.lines.length - 1]!.blank) hunk.lines.pop();
    if (hunk.lines.length > 0) op.hunks.push(hunk);
  };
  const flush = (): void => {
    if (!op) return;
    flushHunk();
    operations.push(op);
  };

  for (const line of lines.slice(startIdx + 1, endIdx)) {
    let marker: [OperationType, RegExpExecArray] | null = null;
    for (const [kind, re] of OP_MARKERS) {
      const m = re.exec(line);
      if (m) {
        marker = [kind, m];
        break;
      }
    }
    if (marker) {
      const [kind, m] = marker;
      flush();
      op = { operation: kind, filePath: m[1]!.trim(), hunks: [] };
      if (kind === 'move') op.newPath = m[2]!.trim();
      // Update hunks start lazily; Add collects every `+` line into one hunk; Delete/Move are complete.
      hunk = kind === 'add' ? { contextHint: null, lines: [] } : null;
      if (kind === 'delete' || kind === 'move') {
        operations.push(op);
        op = null;
      }
      continue;
    }
    if (EOF_MARKER.test(line)) continue;
    const moveTo = MOVE_TO_MARKER.exec(line);
    if (moveTo && op) {
      const dest = moveTo[1]!.trim();
      errors.push(
        `'*** Move to: ${dest}' is not supported; rename with '*** Move File: ${op.filePath} -> ${dest}' and put any edits in their own '*** Update File:' block`,
      );
      continue;
    }
    if (line.startsWith('@@')) {
      if (op) {
        flushHunk();
        const hint = HINT_RE.exec(line);
        hunk = { contextHint: hint ? hint[1]! : null, lines: [] };
      }
      continue;
    }
    if (!op) continue;
    if (line === '') {
      if (op.operation === 'update' && hunk) hunk.lines.push({ prefix: ' ', content: '', blank: true });
      continue;
    }
    if (!hunk) hunk = { contextHint: null, lines: [] };
    const first = line[0]!;
    if (first === '+' || first === '-' || first === ' ') hunk.lines.push({ prefix: first, content: line.slice(1) });
    else if (first !== '\\') hunk.lines.push({ prefix: ' ', content: line }); // implicit context line
  }
  flush();
  for (const o of operations) {
    if (!o.filePath) errors.push('Operation with empty file path');
    if (o.operation === 'update' && o.hunks.length === 0) errors.push(`UPDATE '${o.filePath}': no hunks found`);
    if (o.operation === 'move' && !o.newPath) errors.push(`MOVE '${o.filePath}': missing destination path (expected 'src -> dst')`);
  }
  return errors.length > 0 ? { operations: [], error: `Parse error: ${errors.join('; ')}` } : { operations, error: null };
}

/** Every path a patch names (Move: both ends), in order. */
export function operationPaths(operations: readonly PatchOperation[]): string[] {
  const out: string[] = [];
  for (const op of operations) {
    out.push(op.filePath);
    if (op.operation === 'move' && op.newPath) out.push(op.newPath);
  }
  return out;
}

/** Hermes `has_traversal_component`: a `..` path segment (either separator). */
export function hasTraversal(p: string): boolean {
  return p.split(/[\\/]/).includes('..');
}

// ---------------------------------------------------------------------------------------------
// Simulation

/** A file as it will be after the operations so far. */
interface SimFile {
  content: string;
  bom: boolean;
  crlf: boolean;
  mode?: number;
  /** The untouched original bytes while the content is unchanged (a pure Move keeps them exactly). */
  pristine?: { content: string; bytes: Buffer };
}

interface Original {
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

interface ValidationError {
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

function encodeSim(f: SimFile): Buffer {
  if (f.pristine && f.pristine.content === f.content) return f.pristine.bytes;
  const body = f.crlf ? normalizeLineEndings(f.content, '\r\n') : f.content;
  return Buffer.from((f.bom ? BOM : '') + body, 'utf8');
}

export interface V4aOutcome {
  diff: string;
  filesModified: string[];
  filesCreated: string[];
  filesDeleted: string[];
}

class Simulation {
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
      let result = fuzzyFindAndReplace(content, searchPattern, replacement, false);
      if (!result.ok && hunk.contextHint) {
        // Retry inside a window around the hint (what upstream's apply phase does).
        const at = content.indexOf(hunk.contextHint);
        if (at !== -1) {
          const ws = Math.max(0, at - 500);
          const we = Math.min(content.length, at + 2000);
          const windowed = fuzzyFindAndReplace(content.slice(ws, we), searchPattern, replacement, false);
          if (windowed.ok) result = { ...windowed, content: content.slice(0, ws) + windowed.content + content.slice(we) };
        }
      }
      if (result.ok) {
        content = result.content;
        continue;
      }
      if (isAlreadyApplied(content, searchPattern, replacement)) continue; // a re-sent hunk is a no-op
      const label = hunk.contextHint ? `'${hunk.contextHint}'` : '(no hint)';
      this.error(
        result.kind === 'ambiguous' ? 'ambiguous' : result.kind === 'no_match' ? 'no_match' : 'invalid',
        `${op.filePath}: hunk ${hunkIndex} ${label} not found — ${result.error}${noMatchHint(result.error, searchPattern, content)}`,
      );
    }
    this.state.set(op.absPath, { ...file, content });
    this.diffs.push(fileDiff(op.filePath, before, content));
  }

  async add(op: ResolvedOperation): Promise<void> {
    this.realChanges++;
    const taken = await this.occupied(op.absPath);
    if (taken === 'exists') {
      this.error('invalid', `${op.filePath}: file already exists — use Update File, not Add File`);
      return;
    }
    if (taken) {
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
    this.state.set(op.absPath, { content, bom: false, crlf: false });
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

function validationFailure(errors: ValidationError[]): GatewayError {
  const kinds = new Set(errors.map((e) => e.kind));
  const code = kinds.size === 1 && kinds.has('no_match') ? ErrorCode.PATCH_NO_MATCH : kinds.size === 1 && kinds.has('ambiguous') ? ErrorCode.PATCH_AMBIGUOUS : ErrorCode.PATCH_INVALID;
  const messages = errors.map((e) => e.message);
  return new GatewayError(code, `Patch validation failed (no files were modified):\n${messages.map((m) => `  • ${m}`).join('\n')}`, {
    success: false,
    errors: messages,
  });
}

interface Applied {
  abs: string;
  original: Original;
}

/**
 * Validate and apply resolved operations all-or-nothing. Throws PATCH_* on validation failure
 * (nothing written) and FILE_WRITE_FAILED when a write fails (everything restored).
 */
export async function applyV4a(operations: readonly ResolvedOperation[], signal?: AbortSignal): Promise<V4aOutcome> {
  const sim = new Simulation();
  for (const op of operations) {
    if (op.operation === 'update') await sim.update(op);
    else if (op.operation === 'add') await sim.add(op);
    else if (op.operation === 'delete') await sim.delete(op);
    else await sim.move(op);
  }
  if (sim.errors.length === 0 && sim.realChanges === 0) {
    sim.errors.push({ kind: 'invalid', message: 'Patch contains no changes (only context lines were provided)' });
  }
  if (sim.errors.length > 0) throw validationFailure(sim.errors);
  if (signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'patch cancelled before any file was written');

  // Plan: final writes (in operation order), then deletions.
  const writes: Array<{ abs: string; bytes: Buffer; mode?: number; original: Original }> = [];
  const deletes: Array<{ abs: string; original: Original }> = [];
  for (const [abs, final] of sim.state) {
    const original = sim.originals.get(abs) ?? { exists: false };
    if (final === null) {
      if (original.exists) deletes.push({ abs, original });
      continue;
    }
    const bytes = encodeSim(final);
    if (original.exists && original.bytes && original.bytes.equals(bytes)) continue;
    writes.push({ abs, bytes, mode: final.mode ?? (original.exists ? original.mode : undefined), original });
  }

  const applied: Applied[] = [];
  const createdDirs: string[] = [];
  try {
    for (const w of writes) {
      createdDirs.push(...(await ensureParentDirs(w.abs)));
      await atomicWrite(w.abs, w.bytes, w.mode);
      applied.push({ abs: w.abs, original: w.original });
    }
    for (const d of deletes) {
      await unlink(d.abs);
      applied.push({ abs: d.abs, original: d.original });
    }
  } catch (e) {
    const failures: string[] = [];
    for (const a of applied.reverse()) {
      try {
        if (a.original.exists && a.original.bytes) {
          await ensureParentDirs(a.abs);
          await atomicWrite(a.abs, a.original.bytes, a.original.mode);
        } else {
          await unlink(a.abs);
        }
      } catch (re) {
        failures.push(`${a.abs}: ${(re as Error).message}`);
      }
    }
    await removeCreatedDirs(createdDirs);
    const cause = (e as Error).message;
    throw new GatewayError(
      ErrorCode.FILE_WRITE_FAILED,
      failures.length === 0
        ? `Apply phase failed: ${cause}. Every file already written was restored; no changes remain.`
        : `Apply phase failed: ${cause}. Restoring failed for ${failures.join('; ')} (state may be inconsistent — run \`git diff\` to assess).`,
      { success: false, restored: failures.length === 0 },
    );
  }

  const created = operations.filter((o) => o.operation === 'add').map((o) => o.absPath);
  const deleted = operations.filter((o) => o.operation === 'delete').map((o) => o.absPath);
  const modified = [...new Set(operations.flatMap((o) => (o.operation === 'move' ? [o.absPath, o.absNewPath!] : [o.absPath])))];
  return { diff: sim.diffs.join('\n'), filesModified: modified, filesCreated: created, filesDeleted: deleted };
}
