import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { similarity } from './sequence-matcher.js';

// The file tools' shared failures: arguments, cancellation, failed reads and writes, and Hermes'
// "File not found" with its similar names.

export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new GatewayError(ErrorCode.CANCELLED, `${what} cancelled`);
}

function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

export function isNotFound(e: unknown): boolean {
  const code = errnoOf(e);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A read that failed for another reason than a missing file. */
export function readFailed(input: string, e: unknown): GatewayError {
  const code = errnoOf(e);
  if (code === 'EACCES' || code === 'EPERM') {
    return new GatewayError(ErrorCode.FILE_BLOCKED, `Cannot read '${input}': permission denied.`, { reason: 'permission', errno: code });
  }
  return new GatewayError(ErrorCode.INTERNAL_ERROR, `Failed to read file: ${input}: ${(e as Error)?.message ?? String(e)}`, code ? { errno: code } : undefined);
}

export function notRegularError(input: string): GatewayError {
  return new GatewayError(
    ErrorCode.FILE_NOT_REGULAR,
    `Cannot read '${input}': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely.`,
  );
}

// ---------------------------------------------------------------------------------------------
// "File not found" suggestions (Hermes `_suggest_similar_files`)

/** How `similarFiles` scores, as the Hermes followed does. */
export interface SimilarityRules {
  /** A name scoring nothing else but spelled nearly the same (difflib ratio >= 0.8) scores 50 (Hermes after 0.19). */
  nearMiss?: boolean;
}

/**
 * Up to five names from the same directory that look like `displayPath`'s file name, best first,
 * by Hermes' rules only (same stem, prefix, substring, shared characters with the same extension,
 * and with `nearMiss` a near-miss spelling). Like `ls -1 | head -50`: dot-files are not listed and
 * only the first 50 names are scored.
 */
async function similarFiles(displayPath: string, absolutePath: string, rules: SimilarityRules = {}): Promise<string[]> {
  const dirShown = dirname(displayPath);
  const fileName = basename(displayPath);
  const lower = fileName.toLowerCase();
  const ext = extname(fileName).toLowerCase();
  const stem = basename(fileName, extname(fileName)).toLowerCase();
  let names: string[];
  try {
    names = (await readdir(dirname(absolutePath))).filter((n) => !n.startsWith('.')).sort().slice(0, 50);
  } catch {
    return [];
  }
  const scored: Array<[number, string]> = [];
  for (const name of names) {
    const lf = name.toLowerCase();
    let score = 0;
    if (lf === lower) score = 100;
    else if (basename(lf, extname(lf)) === stem) score = 90;
    else if (lf.startsWith(lower) || lower.startsWith(lf)) score = 70;
    else if (lf.includes(lower)) score = 60;
    else if (lower.includes(lf) && lf.length > 2) score = 40;
    else if (ext && extname(lf) === ext) {
      const common = [...new Set(lower)].filter((c) => lf.includes(c)).length;
      if (common >= Math.max(lower.length, lf.length) * 0.4) score = 30;
    }
    if (score === 0 && rules.nearMiss === true && similarity(lower, lf, NEAR_MISS_RATIO) >= NEAR_MISS_RATIO) score = 50;
    if (score > 0) scored.push([score, dirShown === '.' && !displayPath.startsWith('.//') ? name : join(dirShown, name)]);
  }
  // Stable sort by score only, like Python's `sort(key=-score)`.
  return scored.sort((a, b) => b[0] - a[0]).slice(0, 5).map(([, p]) => p);
}

/** Hermes' near-miss spelling threshold (`difflib.SequenceMatcher(None, a, b).ratio() >= 0.8`). */
const NEAR_MISS_RATIO = 0.8;

/** Hermes' "File not found: <input>" with its similar names; `where` (access/index.ts whereLooked) is appended to the text. */
export async function notFoundError(input: string, absolutePath: string, rules: SimilarityRules = {}, where = ''): Promise<GatewayError> {
  return new GatewayError(ErrorCode.FILE_NOT_FOUND, `File not found: ${input}${where}`, { similar_files: await similarFiles(input, absolutePath, rules) });
}

export function writeFailed(input: string, e: unknown): GatewayError {
  const code = errnoOf(e);
  return new GatewayError(ErrorCode.FILE_WRITE_FAILED, `Failed to write file: ${input}: ${(e as Error)?.message ?? String(e)}`, code ? { errno: code } : undefined);
}
