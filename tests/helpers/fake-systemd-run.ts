import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A FAKE systemd-run for tests: it logs its argv as one JSON line, then skips its options up to
// `--` (or the first non-option, as the probe has no `--`) and execs the rest, like the real
// `--scope` (same pid, fds kept: a worker's fd-3 channel still works). Never the real systemd-run
// in tests: no test may start or talk to a systemd manager.
//
// The gateway scrubs unknown variables (FAKE_*) out of the workers' environment, so the log path
// and the failure mode are baked into the script instead of inherited.

export interface FakeSystemdRun {
  /** Directory holding the fake: put first on PATH. */
  bin: string;
  /** Where the fake appends one JSON array (its argv) per call. */
  log: string;
  /** The PATH to spawn with (the fake first). */
  path: string;
  calls(): string[][];
}

/** Writes the fake under `root` (a fresh temp directory the caller removes). */
export function makeFakeSystemdRun(root: string, options: { fail?: boolean } = {}): FakeSystemdRun {
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const log = join(root, 'systemd-run.jsonl');
  writeFileSync(
    join(bin, 'systemd-run'),
    `#!/bin/bash
/usr/bin/python3 -I -S -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@" >> '${log}'
if [ ${options.fail ? 1 : 0} = 1 ]; then
  echo "Failed to connect to bus: No medium found" >&2
  exit 1
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -p|--property|--slice|--unit|-u) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
exec "$@"
`,
  );
  chmodSync(join(bin, 'systemd-run'), 0o755);
  return {
    bin,
    log,
    path: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as string[])
        : [],
  };
}
