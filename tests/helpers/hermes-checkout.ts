import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermes } from './hermes.js';

// Hermes installs as its installers leave them, made of the pinned real Hermes venv's own files.

/** The pinned Hermes venv's site-packages. */
export const site = (): string => join(hermes().dir, 'lib', 'python3.11', 'site-packages');

/** An interpreter at `path` that is the pinned Hermes venv's (a script, as a venv's python is outside it). */
export function interpreter(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\nexec ${hermes().python} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A checkout as an installer leaves it: Hermes' own hermes_cli package, and optionally its stamp and pyproject.toml. */
export function checkout(dir: string, files: { stamp?: string; pyproject?: string } = {}): string {
  cpSync(join(site(), 'hermes_cli'), join(dir, 'hermes_cli'), { recursive: true });
  if (files.stamp !== undefined) writeFileSync(join(dir, 'install-stamp.json'), JSON.stringify({ baseVersion: files.stamp, source: 'git' }));
  if (files.pyproject !== undefined) writeFileSync(join(dir, 'pyproject.toml'), `[project]\nname = "hermes-agent"\nversion = "${files.pyproject}"\n`);
  return dir;
}
