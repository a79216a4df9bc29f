import type { Piscina } from 'piscina';
import { normalizeResult, type NormalizeOptions } from '../../shared/result.js';
import type { NormalizedToolResult, ToolOutcome } from '../tool-types.js';

// CPU-bound work inside the supervisor goes to a piscina thread so the event loop never stalls on
// one big result (the redaction passes are linear, but 100k+ characters of them still take
// milliseconds every other request would wait for). Small results stay inline: a thread hop costs
// more than they do. The thread is created on first use and exits after a minute idle, so an idle
// gateway pays no memory for it.

let pool: Piscina | undefined;

async function threadPool(): Promise<Piscina> {
  // Imported on first use, like the thread itself: piscina costs ~9 MB of RSS at load.
  const { Piscina: PiscinaClass } = await import('piscina');
  pool ??= new PiscinaClass({
    filename: new URL('./normalize-task.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
  });
  return pool;
}

/** The serialized size of an outcome, in characters (what redaction will have to scan). */
export function outcomeSize(outcome: ToolOutcome): number {
  let n = outcome.structured === undefined ? 0 : JSON.stringify(outcome.structured).length;
  for (const block of outcome.content ?? []) if (typeof block.text === 'string') n += block.text.length;
  return n;
}

export async function normalizeOffloaded(outcome: ToolOutcome, options: NormalizeOptions, offloadAboveChars: number): Promise<NormalizedToolResult> {
  if (outcome.passthrough || outcomeSize(outcome) <= offloadAboveChars) return normalizeResult(outcome, options);
  return (await (await threadPool()).run({ outcome, options })) as NormalizedToolResult;
}

/** How many results were normalised on the thread so far (for tests and /healthz). */
export function offloadedCount(): number {
  return pool?.completed ?? 0;
}

export async function closeCpuPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
