import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Whether argv[0] names an executable file, looked up the way an upstream's spawn will (on the
 * upstream environment's PATH; a name with a slash is a path, relative to `cwd`). Only a look-up:
 * when it fails, no worker is started just to learn that the command is missing (the graph
 * upstream, Hermes' tool server).
 */
export function commandExists(argv0: string, path: string, cwd: string): boolean {
  const candidates = argv0.includes('/') ? [isAbsolute(argv0) ? argv0 : resolve(cwd, argv0)] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, argv0));
  return candidates.some(isExecutableFile);
}

/** A regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
