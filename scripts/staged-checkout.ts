import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// A staged copy of the checkout for test-on-node, rebuilt from the checkout's files on every run.
// Its node_modules is the one thing kept between runs, and only when nothing that decides their
// content changed: the same package.json, the same lock file and the very same Node.js (the native
// modules — better-sqlite3, node-pty — are compiled against that version's headers, about a minute
// of the two cores per version). `npm install` still runs over a kept tree, as it would in any
// developer's checkout, so it checks the tree against the lock and runs the package's own scripts
// (the subreaper addon and the build) as on a fresh clone.

/** The files of the checkout at `root` as git sees them (tracked, plus untracked ones it does not ignore). */
export function checkoutFiles(root: string): string[] {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error('staging needs a git checkout');
  return r.stdout.split('\0').filter((f) => f !== '' && f !== 'node_modules');
}

/** What the staged node_modules were installed from: package.json, package-lock.json and the exact Node version. */
export function dependencyStamp(root: string, nodeVersion: string): string {
  const digest = (file: string): string => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'absent');
  return JSON.stringify({ node: nodeVersion, manifest: digest(join(root, 'package.json')), lock: digest(join(root, 'package-lock.json')) });
}

/**
 * Copies `files` (relative to `root`) into a fresh `stage`. The previous stage's node_modules stay
 * only when `stampFile` records `stamp` (written by `markInstalled` after a successful install);
 * everything else there goes, so no file the checkout no longer has survives. The stamp is removed
 * here, so an install that fails or is interrupted leaves nothing to reuse. Returns whether
 * node_modules were kept.
 */
export function stageCheckout(root: string, files: readonly string[], stage: string, stampFile: string, stamp: string): boolean {
  const kept = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(stage, 'node_modules'));
  rmSync(stampFile, { force: true });
  if (kept) {
    for (const entry of readdirSync(stage)) if (entry !== 'node_modules') rmSync(join(stage, entry), { recursive: true, force: true });
  } else {
    rmSync(stage, { recursive: true, force: true });
  }
  for (const file of files) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    cpSync(join(root, file), join(stage, file), { recursive: false, errorOnExist: false, force: true });
  }
  return kept;
}

/** Records that `npm install` succeeded in the stage with the dependencies `stamp` describes. */
export function markInstalled(stampFile: string, stamp: string): void {
  writeFileSync(stampFile, stamp);
}
