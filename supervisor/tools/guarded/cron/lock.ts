import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import { withKeyedLocks } from '../../../../shared/keyed-lock.js';

// Hermes' cross-process lock on `cron/.jobs.lock` (cron/jobs.py `_jobs_lock`): an exclusive BSD
// `flock(2)` on the file, taken around every load -> modify -> save. Node has no flock, so a tiny
// holder process takes the very same lock for us and keeps it exactly as long as it lives:
//
//   flock --exclusive --wait <s> --conflict-exit-code 75 --close <cron>/.jobs.lock cat
//
// util-linux flock(1) (Essential on Debian) takes LOCK_EX on the file, then runs `cat`, which
// echoes the one byte we wrote to its stdin: that echo is the proof the lock is held. `--close`
// keeps the lock in the flock process alone (cat does not inherit it). Closing cat's stdin ends
// cat, then flock, and the kernel drops the lock. If the gateway dies at any moment the pipe
// closes, so the lock can never be orphaned; a holder that dies early is noticed before the
// rename and the write is abandoned. Where flock(1) is missing, a python3 holder does the same
// with `fcntl.flock` (what Hermes itself calls). One holder per write, and writes from this process
// are queued in-process first, so there is never more than one holder per lock file here.

export type LockHolder = 'flock' | 'python';

interface JobsLockOptions {
  /** How long to wait for Hermes to release the lock. */
  timeoutMs: number;
  /** Force a holder (tests); default: flock(1) when on PATH, else python3. */
  holder?: LockHolder;
  /** The python3 used by the fallback holder. */
  python?: string;
  /** The PATH flock(1) and python3 are looked up on (config.helperSearchPath), also the holder's own PATH. */
  searchPath: string;
}

const CONFLICT_EXIT = 75;
const PYTHON_HOLDER = [
  'import fcntl, sys',
  'f = open(sys.argv[1], "a+", encoding="utf-8")',
  'fcntl.flock(f, fcntl.LOCK_EX)',
  'sys.stdout.write(sys.stdin.read(1)); sys.stdout.flush()',
  'sys.stdin.read()',
].join('\n');

function onPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

function defaultFlock(searchPath: string): string | undefined {
  return onPath('flock', searchPath) ?? ['/usr/bin/flock', '/bin/flock'].find((p) => existsSync(p));
}

/** Which holder a write would use here, or undefined when neither flock(1) nor python3 exists. */
export function availableLockHolder(searchPath: string, python?: string): LockHolder | undefined {
  if (defaultFlock(searchPath)) return 'flock';
  const py = python ?? '/usr/bin/python3';
  return existsSync(py) || onPath('python3', searchPath) ? 'python' : undefined;
}

function unavailable(message: string): GatewayError {
  return new GatewayError(ErrorCode.CRONJOB_LOCK_UNAVAILABLE, `${message}; nothing was written`);
}

/** A held lock: `assertHeld()` throws when the holder died, so a write never lands unlocked. */
interface HeldLock {
  assertHeld(): void;
}

class Holder implements HeldLock {
  private exited = false;
  constructor(readonly child: ChildProcess) {
    child.once('exit', () => (this.exited = true));
  }
  assertHeld(): void {
    if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null) {
      throw unavailable('the process holding cron/.jobs.lock ended before the write finished');
    }
  }
  /** Ends the holder and waits for the lock to be dropped (kill by pid if it lingers). */
  async release(): Promise<void> {
    if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin?.end();
    const timer = setTimeout(() => {
      if (this.child.pid !== undefined) {
        try {
          process.kill(this.child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }, 5_000);
    await gone;
    clearTimeout(timer);
  }
}

function spawnHolder(lockPath: string, options: JobsLockOptions): ChildProcess {
  const env = { PATH: options.searchPath, LC_ALL: 'C' };
  const holder = options.holder ?? (defaultFlock(options.searchPath) ? 'flock' : 'python');
  if (holder === 'flock') {
    const bin = defaultFlock(options.searchPath) ?? 'flock';
    const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
    return spawn(bin, ['--exclusive', '--wait', String(seconds), '--conflict-exit-code', String(CONFLICT_EXIT), '--close', lockPath, 'cat'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
  }
  const python = options.python ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
  return spawn(python, ['-c', PYTHON_HOLDER, lockPath], { stdio: ['pipe', 'pipe', 'pipe'], env });
}

async function acquire(lockPath: string, options: JobsLockOptions, signal?: AbortSignal): Promise<Holder> {
  // Hermes opens the lock file "a+" (creating it); do the same so flock(1) never needs to create it.
  // Hermes' own cron/ (with output/ already there) gets this far on a read-only or full disk: the
  // open is then the first write, and its reason is the caller's.
  try {
    await (await open(lockPath, 'a', 0o600)).close();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GatewayError(ErrorCode.FILE_WRITE_FAILED, `cannot open ${lockPath}: ${code ?? (e as Error).message}; nothing was written`);
  }
  const child = spawnHolder(lockPath, options);
  const holder = new Holder(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-500)));
  return new Promise<Holder>((resolve, reject) => {
    let settled = false;
    const finish = (error?: GatewayError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        void holder.release().finally(() => reject(error));
        if (child.pid !== undefined && child.exitCode === null) {
          try {
            process.kill(child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      } else resolve(holder);
    };
    const onAbort = () => finish(new GatewayError(ErrorCode.CANCELLED, 'cancelled while waiting for cron/.jobs.lock; nothing was written'));
    const timer = setTimeout(
      () => finish(unavailable(`timed out after ${options.timeoutMs} ms waiting for cron/.jobs.lock (Hermes holds it)`)),
      options.timeoutMs + 2_000,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) return onAbort();
    child.once('error', (e) => finish(unavailable(`cannot start the lock holder for cron/.jobs.lock (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
    child.once('exit', (code) =>
      finish(
        code === CONFLICT_EXIT
          ? unavailable(`timed out after ${options.timeoutMs} ms waiting for cron/.jobs.lock (Hermes holds it)`)
          : unavailable(`the lock holder for cron/.jobs.lock exited early (${code ?? 'signal'}${stderr ? `: ${stderr.trim()}` : ''})`),
      ),
    );
    child.stdout?.once('data', () => finish());
    child.stdin?.on('error', () => undefined);
    child.stdin?.write('L');
  });
}

/**
 * Runs `fn` while holding Hermes' `cron/.jobs.lock`: queued behind this process's other writers,
 * then under the cross-process flock. `fn` must call `held.assertHeld()` right before it commits.
 */
export async function withJobsLock<T>(lockPath: string, options: JobsLockOptions, fn: (held: HeldLock) => Promise<T>, signal?: AbortSignal): Promise<T> {
  return withKeyedLocks([`cron:${lockPath}`], async () => {
    const holder = await acquire(lockPath, options, signal);
    try {
      return await fn(holder);
    } finally {
      await holder.release();
    }
  });
}
