import type { Piscina } from 'piscina';
import { normalizeResult, type NormalizeOptions } from '../../core/result.js';
import type { NormalizedToolResult, ToolOutcome } from '../../core/tool-types.js';
import type normalizeTask from './normalize-task.js';

// The supervisor's one piscina pool. CPU-bound or blocking work goes to its threads so the event
// loop never stalls on it: normalising one big result (the redaction passes are linear, but 100k+
// characters of them still take milliseconds every other request would wait for),
// session_search's synchronous SQLite reads (guarded/session-search/task.ts) and read_file's
// rendering of notebooks, Word documents and workbooks (native-tools/files/read-extract-task.ts). Each use names its
// task module per run; the pool is sized here and closed by the gateway's close(). Threads are
// created on first use and exit after IDLE_TIMEOUT_MS idle, so an idle gateway pays no memory for them.

/** Two threads: one slow session_search scan never delays the next call or a big result. */
const MAX_THREADS = 2;
/** Waiting tasks beyond this are refused at once (session_search answers BUSY; a result is normalised inline). */
const MAX_QUEUED = 16;
const IDLE_TIMEOUT_MS = 30_000;

/** A task module the pool runs: its default export's type says what it takes and returns. */
interface CpuTask<Run extends (input: never) => unknown> {
  readonly filename: string;
  /** Type-only: never set. */
  readonly run?: Run;
}

export function cpuTask<Run extends (input: never) => unknown>(url: URL): CpuTask<Run> {
  return { filename: url.href };
}

let pool: Piscina | undefined;

async function threadPool(): Promise<Piscina> {
  // Imported on first use, like the threads themselves: piscina costs ~9 MB of RSS at load.
  const { Piscina: PiscinaClass } = await import('piscina');
  pool ??= new PiscinaClass({ minThreads: 0, maxThreads: MAX_THREADS, maxQueue: MAX_QUEUED, idleTimeout: IDLE_TIMEOUT_MS });
  return pool;
}

/**
 * Runs `input` through `task` on a pool thread. Rejects with piscina's "Task queue is at limit"
 * when MAX_QUEUED tasks already wait; aborting `signal` stops the task (its thread is replaced).
 * `transfer` names buffers of `input` to move to the thread rather than copy (they are detached here).
 */
export async function runOnCpuPool<Run extends (input: never) => unknown>(
  task: CpuTask<Run>,
  input: Parameters<Run>[0],
  signal?: AbortSignal,
  transfer?: ArrayBuffer[],
): Promise<Awaited<ReturnType<Run>>> {
  return (await threadPool()).run(input, { filename: task.filename, ...(signal ? { signal } : {}), ...(transfer?.length ? { transferList: transfer } : {}) });
}

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

/** How many tasks the pool has completed so far, of every kind (for tests). */
export function cpuPoolCompleted(): number {
  return pool?.completed ?? 0;
}

export async function closeCpuPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
