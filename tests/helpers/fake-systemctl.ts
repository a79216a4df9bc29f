import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A FAKE systemctl for doctor's read-only systemd checks: it logs its arguments and answers
// `is-system-running` (running) and `show` (the job slice loaded, the short slice not found). Put
// its directory first on PATH: no test may talk to a real systemd manager.

export interface FakeSystemctl {
  /** Directory holding the fake: put first on PATH. */
  bin: string;
  /** Each call's arguments, one string per call. */
  calls(): string[];
}

/** Writes the fake under `root` (a temp directory the caller removes). */
export function makeFakeSystemctl(root: string): FakeSystemctl {
  const bin = join(root, 'systemctl-bin');
  mkdirSync(bin);
  const log = join(root, 'systemctl.log');
  writeFileSync(
    join(bin, 'systemctl'),
    `#!/bin/sh\necho "$*" >> '${log}'\ncase "$*" in\n  *is-system-running*) echo running ;;\n  *show*) printf 'loaded\\nnot-found\\n' ;;\n  *) exit 1 ;;\nesac\n`,
  );
  chmodSync(join(bin, 'systemctl'), 0o755);
  return { bin, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}
