import type { Piscina } from 'piscina';

// The supervisor's one piscina pool. CPU-bound or blocking work goes to its threads so the event
// loop never stalls on it: normalising one big result (core/pipeline.ts; the redaction passes are linear, but 100k+
// characters of them still take milliseconds every other request would wait for),
// session_search's synchronous SQLite reads (tools/guarded/session-search/task.ts) and read_file's
// rendering of notebooks, Word documents and workbooks (tools/files/read/extract/task.ts). Each use names its
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

/** How many tasks the pool has completed so far, of every kind (for tests). */
export function cpuPoolCompleted(): number {
  return pool?.completed ?? 0;
}

export async function closeCpuPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
