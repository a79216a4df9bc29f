import type { TestGateway } from './gateway.js';

// A gateway clock a test moves on: real time plus an offset. Expiry, deadlines, the KILL after a
// grace period and receipt retention follow it, so a test advances it instead of sleeping past
// them; real work (a job's process, a job_status wait) keeps running in real time.

export interface TestClock {
  /** Pass as startTestGateway({ now }). */
  readonly now: () => number;
  /** Moves the clock on by `ms` (the gateway's timers are not run: see maintenancePass). */
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += ms;
    },
  };
}

/**
 * What the gateway's maintenance timers would do next, done now: the capability expiry sweep and a
 * full job maintenance pass (deadlines, KILL after grace, output flush, checkpoint, prepare expiry,
 * receipt retention, reconciliation).
 */
export function maintenancePass(gw: TestGateway): void {
  gw.gateway.sweepExpiredCapabilities();
  const runner = gw.jobs.runner;
  if (!runner) throw new Error('the test gateway has no job runner (its job database did not open)');
  runner.tick(true);
}

/** Advances `clock` by `ms`, then runs one maintenance pass of `gw` at the new time. */
export function advanceAndMaintain(gw: TestGateway, clock: TestClock, ms: number): void {
  clock.advance(ms);
  maintenancePass(gw);
}
