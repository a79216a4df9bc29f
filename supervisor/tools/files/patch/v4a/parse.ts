// The V4A patch parser (tools/patch_parser.py's parse phase); v4a.ts describes the format.
//
// Parsing follows upstream (markers must start the line, CRLF tolerated, `*** End of File` skipped,
// `*** Move to:` refused, `\ No newline` skipped, an unprefixed line is context). One deliberate
// difference: a completely empty line inside an Update hunk is an empty context line (editors strip
// the lone space of a blank context line), and empty lines ending a hunk are dropped as separators;
// upstream silently drops every empty line, which makes such hunks unmatchable.

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

/** The lines between `*** Begin Patch` (the last before the end, if any) and the first `*** End Patch`, without CRs. */
function patchBody(text: string): string[] {
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
  return lines.slice(startIdx + 1, endIdx);
}

/** The operation a marker line starts, with its match, or null. */
function operationMarker(line: string): [OperationType, RegExpExecArray] | null {
  for (const [kind, re] of OP_MARKERS) {
    const m = re.exec(line);
    if (m) return [kind, m];
  }
  return null;
}

/** What a parsed patch's operations lack (an empty path, an Update without hunks, a Move without destination). */
function operationErrors(operations: readonly PatchOperation[]): string[] {
  const errors: string[] = [];
  for (const o of operations) {
    if (!o.filePath) errors.push('Operation with empty file path');
    if (o.operation === 'update' && o.hunks.length === 0) errors.push(`UPDATE '${o.filePath}': no hunks found`);
    if (o.operation === 'move' && !o.newPath) errors.push(`MOVE '${o.filePath}': missing destination path (expected 'src -> dst')`);
  }
  return errors;
}

export function parseV4aPatch(text: string): { operations: PatchOperation[]; error: string | null } {
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

  for (const line of patchBody(text)) {
    const marker = operationMarker(line);
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
  errors.push(...operationErrors(operations));
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
