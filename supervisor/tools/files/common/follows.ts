import type { HermesChangeName, HermesRelease } from '../../../platform/hermes/release.js';

// Which Hermes the file tools follow (supervisor/platform/hermes/release.ts): each tool asks for
// the change it implements, never for a version.

/** What a file tool needs to know of the Hermes it follows. */
export interface FollowsDeps {
  /** The Hermes followed; the newest the gateway knows when absent. */
  release?: HermesRelease;
}

/** Whether the Hermes followed has `change` (the newest, when none is named). */
export function follows(deps: FollowsDeps, change: HermesChangeName): boolean {
  return deps.release?.has(change) ?? true;
}
