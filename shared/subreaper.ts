import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

// Loader for the native subreaper addon (subreaper/subreaper.c, built by `npm install` through
// node-gyp). Missing addon = degraded isolation, reported by the caller, never a crash.

interface SubreaperAddon {
  setChildSubreaper(): boolean;
  isChildSubreaper(): boolean;
  reap(pid: number): number;
}

let addon: SubreaperAddon | null | undefined;

export function subreaperAddon(): SubreaperAddon | null {
  if (addon !== undefined) return addon;
  try {
    addon = createRequire(import.meta.url)(join(packageRoot(), 'build', 'Release', 'subreaper.node')) as SubreaperAddon;
  } catch {
    addon = null;
  }
  return addon;
}

/** Marks this process a child subreaper; false when the addon is missing or prctl failed. */
export function becomeSubreaper(): boolean {
  return subreaperAddon()?.setChildSubreaper() ?? false;
}
