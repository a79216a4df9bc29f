import { cpuTask, runOnCpuPool } from '../platform/thread-pool/pool.js';
import type normalizeTask from './normalize-task.js';
import { normalizeResult, type NormalizeOptions } from './result.js';
import type { NormalizedToolResult, ToolOutcome } from './tool-types.js';

// A big result is normalised (redacted, capped) on the supervisor's thread pool so the event loop
// never stalls on it; a small one inline, where the thread hop would cost more than the work.

const NORMALIZE = cpuTask<typeof normalizeTask>(new URL('./normalize-task.js', import.meta.url));

/**
 * Whether an outcome holds more than `limit` characters of text (what redaction will have to
 * scan): its strings and keys, counted until the limit is passed. Cheaper than serializing every
 * result just to measure it; quoting and punctuation are not counted, which only moves the
 * threshold by a few percent.
 */
function outcomeExceeds(outcome: ToolOutcome, limit: number): boolean {
  let n = 0;
  for (const block of outcome.content ?? []) if (typeof block.text === 'string') n += block.text.length;
  if (n > limit) return true;
  const stack: unknown[] = outcome.structured === undefined ? [] : [outcome.structured];
  // Every visit counts at least one character (brackets, commas), so even a cycle ends, and the
  // count is checked before each push, so a huge array or object costs no more than the limit.
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') n += value.length;
    else if (ArrayBuffer.isView(value)) n += value.byteLength;
    else if (Array.isArray(value)) {
      n += 2;
      for (const item of value) {
        if (++n > limit) return true;
        stack.push(item);
      }
    } else if (value !== null && typeof value === 'object') {
      n += 2;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        n += key.length + 1;
        if (n > limit) return true;
        stack.push((value as Record<string, unknown>)[key]);
      }
    } else n += 4; // numbers, booleans, null
    if (n > limit) return true;
  }
  return false;
}

/** normalizeResult, on a pool thread for outcomes above `offloadAboveChars` (a thread hop costs more than a small one). */
export async function normalizeOffloaded(outcome: ToolOutcome, options: NormalizeOptions, offloadAboveChars: number): Promise<NormalizedToolResult> {
  if (!outcomeExceeds(outcome, offloadAboveChars)) return normalizeResult(outcome, options);
  return runOnCpuPool(NORMALIZE, { outcome, options });
}
