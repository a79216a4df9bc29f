import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Throwaway directories for one test file: `make` creates one under the temp directory,
// `removeAll` (called from the file's after hook) deletes every one it made.
export interface TempDirs {
  make(prefix: string): string;
  removeAll(): void;
}

export function tempDirs(): TempDirs {
  const made: string[] = [];
  return {
    make(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    removeAll() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
