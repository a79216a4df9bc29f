import { spawnSync } from 'node:child_process';
import { subreaperAddon } from '../../../shared/subreaper.js';

// Which whole-tree cleanup this host allows, detected once at startup and reported in /healthz.
//
// - pid-namespace: `setpriv --pdeathsig KILL unshare --pid --fork --kill-child --mount-proc`. The
//   kernel kills every process in the namespace when its init (the worker) dies, and pdeathsig
//   takes the namespace down if the supervisor itself is SIGKILLed. Measured: 0 survivors in every
//   case tried (SIGKILL of the worker, of the supervisor, double-forked and setsid escapees).
// - subreaper: no namespace, but the worker is a child subreaper (native addon), runs its commands
//   in their own process groups and sweeps adopted orphans and environment-tagged processes. Best
//   effort: a process that clears its environment and whose parent outlives it can escape.
// - process-group: neither; process-group kill only. Logged as degraded.

export type IsolationMode = 'pid-namespace' | 'subreaper' | 'process-group';

export interface IsolationReport {
  mode: IsolationMode;
  degraded: boolean;
  /** The command prefix a worker is started under (empty outside pid-namespace mode). */
  prefix: string[];
  reason: string;
}

function namespacePrefix(isRoot: boolean): string[] {
  return ['setpriv', '--pdeathsig', 'KILL', 'unshare', ...(isRoot ? [] : ['--map-root-user']), '--pid', '--fork', '--kill-child', '--mount-proc'];
}

/** Probes the host. `HERMES_MCP_ISOLATION` may force a weaker mode (never a stronger one). */
export function detectIsolation(forced?: string): IsolationReport {
  const isRoot = process.getuid?.() === 0;
  const hasAddon = subreaperAddon() !== null;
  const want = forced && ['pid-namespace', 'subreaper', 'process-group'].includes(forced) ? (forced as IsolationMode) : 'pid-namespace';
  if (want === 'pid-namespace') {
    const prefix = namespacePrefix(isRoot);
    const probe = spawnSync(prefix[0]!, [...prefix.slice(1), 'true'], { stdio: 'ignore', timeout: 5000 });
    if (probe.status === 0) return { mode: 'pid-namespace', degraded: false, prefix, reason: 'PID namespace per worker with parent-death signal' };
  }
  if (want !== 'process-group' && hasAddon) {
    return { mode: 'subreaper', degraded: true, prefix: [], reason: 'no PID namespace available; child subreaper + process-group kill + tagged sweep (best effort)' };
  }
  return { mode: 'process-group', degraded: true, prefix: [], reason: 'no PID namespace and no subreaper addon; process-group kill only' };
}
