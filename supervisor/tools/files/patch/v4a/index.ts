import { unlink } from 'node:fs/promises';
import { ErrorCode, GatewayError } from '../../../../../shared/errors.js';
import { atomicWrite, ensureParentDirs, removeCreatedDirs } from '../../common/index.js';
import { assertNoAddedRedactionMarker } from '../../write/index.js';
import { type PatchWrite, sha256Hex } from '../../state/index.js';
import { encodeSim, Simulation, type Original, type ResolvedOperation, type SimulationOptions, type ValidationError } from './simulate.js';

// V4A patches (tools/patch_parser.py): the multi-file format used by codex/cline.
//
//   *** Begin Patch
//   *** Update File: src/app.py          hunks: optional `@@ hint @@`, then ` ctx` / `-old` / `+new`
//   *** Add File: notes.txt              every line `+`
//   *** Delete File: old.txt
//   *** Move File: a.txt -> b.txt
//   *** End Patch
//
// Parsing lives in parse.ts, the validation phase (the simulated overlay) in simulate.ts;
// this module holds the all-or-nothing apply phase and re-exports the public API.
//
// Applying is all-or-nothing: every operation is simulated in order against an overlay (so a later
// operation sees earlier ones, e.g. an Update of a file an earlier Move created), every problem is
// collected, and nothing is written unless all of it validates. The final contents are then written
// (atomically, per file) and deletions done; if any write fails, everything already written is
// restored from the original bytes and any directories created are removed. Because every touched
// file's original bytes are held for that rollback, operations apply to text files of at most
// 10 MiB (upstream, too, cannot Update/Delete/Move a binary file through V4A).

export { hasTraversal, operationPaths, parseV4aPatch, type Hunk, type HunkLine, type OperationType, type PatchOperation } from './parse.js';
export type { ResolvedOperation } from './simulate.js';

interface V4aOutcome {
  /** Each file written, with the sha256 of the bytes it had ('' when created) and of the bytes written (state/). */
  writes: PatchWrite[];
  /** Files deleted or moved away. */
  removed: string[];
  /** Hermes 0.22's notes: which files' hunks a similarity strategy placed. */
  notes: string[];
  diff: string;
  filesModified: string[];
  filesCreated: string[];
  filesDeleted: string[];
}

function validationFailure(errors: ValidationError[]): GatewayError {
  const kinds = new Set(errors.map((e) => e.kind));
  const code = kinds.size === 1 && kinds.has('no_match') ? ErrorCode.PATCH_NO_MATCH : kinds.size === 1 && kinds.has('ambiguous') ? ErrorCode.PATCH_AMBIGUOUS : ErrorCode.PATCH_INVALID;
  const message = `Patch validation failed (no files were modified):\n${errors.map((e) => `  • ${e.message}`).join('\n')}`;
  return new GatewayError(code, message, { success: false, ...notFoundHint(message) });
}

/** Upstream patch_tool's `_hint` on a "Could not find" failure that carries no "Did you mean" snippet. */
export function notFoundHint(message: string): { _hint?: string } {
  if (!message.includes('Could not find') || message.includes('Did you mean one of these sections?')) return {};
  return { _hint: 'old_string not found. Use read_file to verify the current content, or search_files to locate the text.' };
}

interface Applied {
  abs: string;
  original: Original;
}

/**
 * Validate and apply resolved operations all-or-nothing. Throws PATCH_* on validation failure
 * (nothing written) and FILE_WRITE_FAILED when a write fails (everything restored).
 */
export async function applyV4a(
  operations: readonly ResolvedOperation[],
  signal: AbortSignal | undefined,
  options: SimulationOptions,
  /** The fail-closed syntax gate (write/index.ts gateRefusal). */
  gate: (path: string, content: string) => Promise<string | null>,
): Promise<V4aOutcome> {
  const sim = await validate(operations, options, gate);
  if (signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, 'patch cancelled before any file was written');
  const { writes, deletes } = plan(sim);
  await writeAll(writes, deletes);
  const created = operations.filter((o) => o.operation === 'add').map((o) => o.absPath);
  const deleted = operations.filter((o) => o.operation === 'delete').map((o) => o.absPath);
  const modified = [...new Set(operations.flatMap((o) => (o.operation === 'move' ? [o.absPath, o.absNewPath!] : [o.absPath])))];
  const written = writes.map((w) => ({ real: w.abs, readSha: w.original.exists && w.original.bytes ? sha256Hex(w.original.bytes) : '', writtenSha: sha256Hex(w.bytes) }));
  return { notes: sim.notes, writes: written, removed: deletes.map((d) => d.abs), diff: sim.diffs.join('\n'), filesModified: modified, filesCreated: created, filesDeleted: deleted };
}

/** The validation phase: every operation simulated in order, the syntax gate, the redaction-marker check; throws PATCH_* on any problem. */
async function validate(operations: readonly ResolvedOperation[], options: SimulationOptions, gate: (path: string, content: string) => Promise<string | null>): Promise<Simulation> {
  const sim = new Simulation(options);
  for (const op of operations) {
    if (op.operation === 'update') await sim.update(op);
    else if (op.operation === 'add') await sim.add(op);
    else if (op.operation === 'delete') await sim.delete(op);
    else await sim.move(op);
  }
  // Hermes' write_file refuses JSON/YAML/TOML that does not parse; here that is found before anything
  // is written (Hermes finds it in its apply phase, after the earlier operations were written).
  if (sim.errors.length === 0) {
    for (const op of operations) {
      if (op.operation !== 'update' && op.operation !== 'add') continue;
      const final = sim.state.get(op.absPath);
      const refusal = final ? await gate(op.filePath, final.content) : null;
      if (refusal) sim.errors.push({ kind: 'invalid', message: `${op.filePath}: ${refusal}` });
    }
  }
  if (sim.errors.length === 0 && sim.realChanges === 0) {
    sim.errors.push({ kind: 'invalid', message: 'Patch contains no changes (only context lines were provided)' });
  }
  if (sim.errors.length > 0) throw validationFailure(sim.errors);
  // No Update or Add may leave a file holding a redaction marker it did not hold (write/index.ts).
  for (const op of operations) {
    if (op.operation !== 'update' && op.operation !== 'add') continue;
    const final = sim.state.get(op.absPath);
    if (final) assertNoAddedRedactionMarker('patch', op.filePath, sim.originals.get(op.absPath)?.bytes?.toString('utf8') ?? '', final.content);
  }
  return sim;
}

interface PlannedWrite {
  abs: string;
  bytes: Buffer;
  mode?: number;
  original: Original;
}

/** The final writes (in operation order; unchanged bytes skipped), then the deletions. */
function plan(sim: Simulation): { writes: PlannedWrite[]; deletes: Applied[] } {
  const writes: PlannedWrite[] = [];
  const deletes: Applied[] = [];
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
  return { writes, deletes };
}

/** The apply phase: writes then deletions; on a failure everything done is restored (FILE_WRITE_FAILED). */
async function writeAll(writes: readonly PlannedWrite[], deletes: readonly Applied[]): Promise<void> {
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
    const failures = await restore(applied.reverse());
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
}

/** Puts back each file's original bytes (or removes a created one), in the order given; the failures, as text. */
async function restore(applied: readonly Applied[]): Promise<string[]> {
  const failures: string[] = [];
  for (const a of applied) {
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
  return failures;
}
