// Deadlines and elapsed times are measured on a monotonic clock: the wall clock (Date.now()) can
// step when NTP corrects it or a virtual machine resumes, and a budget measured on it would end
// early or late. Whole milliseconds, as Date.now() counts them, since timer APIs such as
// AbortSignal.timeout take only whole numbers. A monotonic time means something only within its
// own process: it is never stored or sent to another process.

/** Milliseconds on this process's monotonic clock (performance.now(), whole). */
export function monotonicMs(): number {
  return Math.floor(performance.now());
}
