import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

// Event-loop delay for /healthz: how late timers fire on the supervisor's one thread, the first
// thing to grow when something blocks it (a synchronous scan, a huge JSON parse, GC pressure).
// One histogram per process (the loop is per process, however many gateways a test runs in it),
// sampled every 20 ms and reported per completed window of WINDOW_SECONDS, so a reading is
// recent and never an average over the whole uptime.

const WINDOW_SECONDS = 10;
const RESOLUTION_MS = 20;

export interface EventLoopDelay {
  window_seconds: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

let histogram: IntervalHistogram | undefined;
let lastWindow: EventLoopDelay | undefined;

// The histogram records the whole interval between two samples (the resolution plus the lateness);
// the lateness is what blocked the loop, so the resolution is taken off.
const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);

function read(h: IntervalHistogram): EventLoopDelay {
  // An empty histogram reports its extremes (max 0, min 9.2e18): no samples yet reads as 0.
  if (h.count === 0) return { window_seconds: WINDOW_SECONDS, p50_ms: 0, p99_ms: 0, max_ms: 0 };
  return { window_seconds: WINDOW_SECONDS, p50_ms: ms(h.percentile(50)), p99_ms: ms(h.percentile(99)), max_ms: ms(h.max) };
}

/** The last completed window (the current one until a window has completed). Starts sampling on first use. */
export function eventLoopDelay(): EventLoopDelay {
  if (!histogram) {
    const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    h.enable();
    histogram = h;
    setInterval(() => {
      lastWindow = read(h);
      h.reset();
    }, WINDOW_SECONDS * 1000).unref();
  }
  return lastWindow ?? read(histogram);
}
