import type { Stats } from 'node:fs';
import { fileReadRedactionChanges } from '../../../core/result.js';
import { GatewayError } from '../../../../shared/errors.js';
import type { ReadPage } from '../state/index.js';
import type { ReadRules } from './rules.js';
import { MAX_LINE_LENGTH } from './scan.js';

// How read_file shows lines, for text files and documents alike (Hermes tools/file_tools.py
// `_apply_char_budget`, tools/file_operations.py `_add_line_numbers`): the `N|line` gutter, a line
// cut at 2000 characters, the 100,000-character read budget cut on a line boundary, and the
// merge-conflict count (tools/file_operations_common.py `count_conflict_blocks`).

/** `file_read_max_chars`: formatted content above this is cut on a line boundary. */
export const MAX_READ_CHARS = 100_000;

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Characters as Python counts them (code points), not UTF-16 units. */
export function codePoints(s: string): number {
  return s.length - (s.match(SURROGATE_PAIR)?.length ?? 0);
}

/** Whether a line is longer than `max_line_length` characters (and so is shown cut). */
export function overLong(line: string): boolean {
  return line.length > MAX_LINE_LENGTH && codePoints(line) > MAX_LINE_LENGTH;
}

/** A line cut at MAX_LINE_LENGTH code points (Python slicing never splits a character). */
function cutLine(line: string): string {
  if (line.length <= MAX_LINE_LENGTH) return line;
  const chars = Array.from(line);
  return chars.length <= MAX_LINE_LENGTH ? line : chars.slice(0, MAX_LINE_LENGTH).join('') + '... [truncated]';
}

export function numbered(lines: string[], start: number): string[] {
  return lines.map((line, i) => `${start + i}|${cutLine(line)}`);
}

/**
 * Hermes `_truncate_to_char_budget` on the numbered lines: the lines that fit MAX_READ_CHARS
 * characters (joined by "\n"), and also `maxJson` characters once JSON-escaped (the result cap), at
 * least a clamped first line. Sets content, and when lines were left out truncated, truncated_by,
 * next_offset and the hint to continue (and, with `flagClamp`, truncated_lines for a first line
 * clamped mid-line, as Hermes after 0.19 does).
 */
export function fitReadBudget(
  result: Record<string, unknown>,
  lines: string[],
  offset: number,
  totalLines: number,
  maxJson: number,
  flagClamp: boolean,
): void {
  // The common case at once: UTF-16 units are never fewer than characters.
  const whole = lines.join('\n');
  if (whole.length <= MAX_READ_CHARS && (maxJson === Number.POSITIVE_INFINITY || JSON.stringify(whole).length - 2 <= maxJson)) {
    result.content = whole;
    return;
  }
  const kept: string[] = [];
  let chars = 0;
  let json = 0;
  for (const line of lines) {
    const addChars = codePoints(line) + (kept.length > 0 ? 1 : 0);
    const addJson = JSON.stringify(line).length - 2 + (kept.length > 0 ? 2 : 0);
    if (chars + addChars > MAX_READ_CHARS || json + addJson > maxJson) break;
    kept.push(line);
    chars += addChars;
    json += addJson;
  }
  if (kept.length === lines.length) {
    result.content = whole;
    return;
  }
  const budget = Math.min(MAX_READ_CHARS, maxJson);
  const clamped = kept.length === 0;
  if (clamped) kept.push(Array.from(lines[0]!).slice(0, budget).join(''));
  const next = offset + kept.length;
  result.content = kept.join('\n');
  result.truncated = true;
  result.truncated_by = 'bytes';
  result.next_offset = next;
  result.hint =
    `Output truncated at the ${formatCount(budget)}-char read budget after ${kept.length} line(s) ` +
    `(showing lines ${offset}-${next - 1} of ${totalLines}). Use offset=${next} to continue.` +
    (clamped ? ' Note: the first line alone exceeded the budget and was clamped mid-line; its remainder is not retrievable via offset.' : '');
  if (clamped && flagClamp) result.truncated_lines = true;
}

const CONFLICT_OPEN = /^\s*\d+\|<<<<<<< /gm;
const CONFLICT_CLOSE = /^\s*\d+\|>>>>>>> /gm;

/**
 * Hermes `count_conflict_blocks`: unresolved merge-conflict blocks in a `N|line` page, 0 unless the
 * page holds both `<<<<<<< ` and `>>>>>>> ` gutter lines (a lone marker in prose is not a conflict).
 */
export function conflictBlocks(formatted: string): number {
  const opens = formatted.match(CONFLICT_OPEN)?.length ?? 0;
  return opens === 0 ? 0 : Math.min(opens, formatted.match(CONFLICT_CLOSE)?.length ?? 0);
}

/** Hermes' `_hint` for a page with merge conflicts in it. */
export function conflictHint(blocks: number): string {
  return (
    `${blocks} unresolved git merge-conflict block(s) (<<<<<<< / ======= / >>>>>>>) in this range. ` +
    'Resolve them (keep one side or combine, delete the markers) before editing around them.'
  );
}

/** The marker cutLine puts after a line cut at its length cap. */
const CUT_MARKER = '... [truncated]';

/** A numbered line read_file cut at its length cap (MAX_LINE_LENGTH code points, then the marker). */
function wasCut(numbered: string): boolean {
  if (!numbered.endsWith(CUT_MARKER)) return false;
  const body = numbered.slice(numbered.indexOf('|') + 1);
  return Array.from(body).length === MAX_LINE_LENGTH + CUT_MARKER.length;
}

/**
 * The page a read_file answer served, as Hermes' read bookkeeping sees it: lines `offset`..the
 * last shown (`next_offset` - 1 when the character budget cut it), partial unless it started at
 * line 1 and nothing was truncated, altered when the pipeline's redaction (file-read mode) would
 * change its content or a line was cut. Undefined for an answer without a stat of what was read.
 */
export function servedPage(real: string, offset: number, limit: number, result: Record<string, unknown>, secretFile: boolean, seen: Stats | undefined): ReadPage | undefined {
  if (!seen || typeof result.total_lines !== 'number') return undefined;
  const content = typeof result.content === 'string' ? result.content : '';
  const totalLines = result.total_lines;
  const end = result.truncated_by === 'bytes' && typeof result.next_offset === 'number' ? result.next_offset - 1 : Math.min(offset + limit - 1, totalLines);
  const altered = content !== '' && (fileReadRedactionChanges(content, secretFile) || content.split('\n').some(wasCut));
  return { real, start: offset, end, totalLines, whole: offset <= 1 && result.truncated !== true, altered, seen };
}

/** Above this size (and a wide, truncated read) a `_hint` nudges toward targeted reads. */
const LARGE_FILE_HINT_BYTES = 512_000;

/** Hermes' ReadResult fields of an answer without content (`ReadResult().to_dict()`). */
export function emptyRead(rules: ReadRules): Record<string, unknown> {
  const fields: Record<string, unknown> = { content: '', total_lines: 0, file_size: 0, truncated: false, is_binary: false, is_image: false };
  if (rules.notFoundField) fields.not_found = false;
  return fields;
}

/** A refusal of a missing or irregular file with Hermes' ReadResult fields (`similar_files` only when there are some). */
export function withReadFields(e: GatewayError, rules: ReadRules, notFound = false): GatewayError {
  const { similar_files: similar, ...rest } = e.details ?? {};
  const details: Record<string, unknown> = { ...emptyRead(rules), ...rest };
  if (rules.notFoundField) details.not_found = notFound;
  if (Array.isArray(similar) && similar.length > 0) details.similar_files = similar;
  return new GatewayError(e.code, e.message, details);
}

/**
 * A page of lines as Hermes after 0.21 numbers a page it joined itself (a document's, a UTF-16
 * file's): one trailing newline of the joined text is dropped, so a blank last line of the page is
 * not shown (`_add_line_numbers`).
 */
export function pageLines(page: string[], rules: ReadRules): string[] {
  return rules.linesAsCatN && page.length > 1 && page[page.length - 1] === '' ? page.slice(0, -1) : page;
}

/** What a read found: the page's lines as the file has them, and what the answer says about them. */
export interface Found {
  lines: string[];
  totalLines: number;
  fileSize: number;
  truncated: boolean;
  hint?: string;
  extra?: Record<string, unknown>;
}

/**
 * The answer for the lines found: numbered, fitted to the read budget, with Hermes' hints (and
 * after 0.19 `truncated_lines` and the merge-conflict count).
 */
export function answer(rules: ReadRules, found: Found, offset: number, limit: number, maxJson: number): Record<string, unknown> {
  const result: Record<string, unknown> = { ...emptyRead(rules), total_lines: found.totalLines, file_size: found.fileSize, truncated: found.truncated, ...found.extra };
  if (found.hint !== undefined) result.hint = found.hint;
  if (rules.truncatedLinesFlag && found.lines.some(overLong)) result.truncated_lines = true;
  // The read budget on the formatted content (what would enter the model's context), before redaction.
  fitReadBudget(result, numbered(found.lines, offset), offset, found.totalLines, maxJson, rules.truncatedLinesFlag);
  if (rules.conflictBlocks) {
    const blocks = conflictBlocks(String(result.content));
    if (blocks > 0) {
      result.conflict_blocks = blocks;
      result._hint = conflictHint(blocks);
    }
  }
  if (result._hint === undefined && result.truncated && found.fileSize > LARGE_FILE_HINT_BYTES && limit > 200) {
    result._hint =
      `This file is large (${formatCount(found.fileSize)} bytes). Consider reading only the section you need with offset and limit ` +
      'to keep context usage efficient.';
  }
  return result;
}
