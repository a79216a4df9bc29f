import { spawnSync } from 'node:child_process';
import type { ResourceLimits } from '../../../policy/resource-policy.js';

// A transient systemd scope around a short worker when the host resource policy is enforced:
// `systemd-run --user --scope` puts the worker (same pid: it execs the command, fds kept) into its
// own cgroup under a slice, with memory, task and CPU limits the kernel enforces on the whole tree.
// Whether the host allows it (a systemd user manager reachable over D-Bus) is probed once at
// startup; without it /healthz says so (`systemd_scope: false`) and the resource policy falls back
// to direct cgroups or refuses the work (supervisor/platform/spawning/resource-policy.ts).

interface ScopeOptions {
  /** Unit name (systemd appends `.scope`), e.g. `hermes-exec-3f9a…`. */
  unit: string;
  /** Parent slice, e.g. `hermesshort.slice`. */
  slice: string;
  /** MemoryMax=, CPUQuota=, TasksMax= from the resource policy. */
  limits: ResourceLimits;
}

interface ScopeAvailability {
  available: boolean;
  reason: string;
}

/** The argv prefix that runs a command in a transient user scope; the command follows `--`. */
export function scopeArgv(options: ScopeOptions): string[] {
  const { limits } = options;
  const properties = ['-p', `MemoryMax=${limits.memory_max}`, '-p', `TasksMax=${limits.tasks_max}`, '-p', `CPUQuota=${limits.cpu_quota}`];
  return ['systemd-run', '--user', '--scope', '--quiet', '--collect', `--slice=${options.slice}`, `--unit=${options.unit}`, ...properties, '--'];
}

const PROBE_TIMEOUT_MS = 5000;

/**
 * Probes whether `systemd-run --user --scope` works here by running `true` in a scope. `env` is the
 * environment the workers are spawned with (its PATH decides which `systemd-run` is found, and its
 * XDG_RUNTIME_DIR / DBUS_SESSION_BUS_ADDRESS which user manager is reached).
 */
export function detectSystemdScope(env: NodeJS.ProcessEnv): ScopeAvailability {
  const probe = spawnSync('systemd-run', ['--user', '--scope', '--quiet', '--collect', 'true'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: PROBE_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  const stderr = `${probe.stderr ?? ''}`.trim();
  const firstLine = stderr.split('\n')[0] ?? '';
  if (probe.error) {
    const code = (probe.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { available: false, reason: 'systemd-run not found (ENOENT)' };
    if (code === 'ETIMEDOUT') return { available: false, reason: `systemd-run --user --scope did not finish within ${PROBE_TIMEOUT_MS / 1000} s` };
    return { available: false, reason: `systemd-run could not be started: ${probe.error.message}` };
  }
  if (/Failed to connect to bus/i.test(stderr)) return { available: false, reason: `no systemd user manager reachable: ${firstLine}` };
  if (/not been booted with systemd/i.test(stderr)) return { available: false, reason: `host not booted with systemd: ${firstLine}` };
  if (probe.status !== 0) {
    const how = probe.signal ? `signal ${probe.signal}` : `status ${probe.status}`;
    return { available: false, reason: `systemd-run --user --scope exited with ${how}${firstLine ? `: ${firstLine}` : ''}` };
  }
  return { available: true, reason: 'transient user scopes via systemd-run --user --scope' };
}
