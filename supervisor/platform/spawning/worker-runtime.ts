import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scrubChildEnv } from './env-scrub.js';
import { packageRoot } from '../../../shared/package-root.js';
import { ErrorCode } from '../../../shared/errors.js';
import { maxFrameBytes } from '../../../shared/worker-protocol/caps.js';
import { executeUnitProtocol, type ExecuteUnitProtocol } from '../../../shared/worker-protocol/execute.js';
import { lspProtocol, type LspProtocol } from '../../../shared/worker-protocol/lsp.js';
import { graphProtocol, type GraphProtocol } from '../../../shared/worker-protocol/graph.js';
import { hermesToolsProtocol, type HermesToolsProtocol } from '../../../shared/worker-protocol/hermes-tools.js';
import { hermesCallProtocol, type HermesCallProtocol } from '../../../shared/worker-protocol/hermes-call.js';
import { processProtocol, type ProcessProtocol } from '../../../shared/worker-protocol/process.js';
import type { ProtocolMessages, WorkerProtocol } from '../../../shared/worker-protocol/protocol.js';
import { terminalProtocol, type TerminalProtocol } from '../../../shared/worker-protocol/terminal.js';
import { zygoteProtocol, type ZygoteProtocol } from '../../../shared/worker-protocol/zygote.js';
import { ConfigError, type GatewayConfig } from '../config.js';
import { detectIsolation, type IsolationReport } from './isolation.js';
import { makePrivateDir, stateDirProblem, type PrivateDirKind } from './private-dirs.js';
import { loadResourceState, shortWorkerLimits, type ResourceState } from './resource-policy.js';
import { CgroupLimit } from './cgroup-limits.js';
import { scopeArgv } from './systemd-scope.js';
import { WorkerProcess } from './worker-process.js';

// What every native adapter shares: the detected isolation, the scrubbed environment workers and
// their commands inherit, and the private state directory (0700) for snapshots and sockets.
// The host resource policy is loaded here too, once. The short workers are execute_code units and
// Hermes call workers (Hermes' own code on a caller's document or cron change): when the policy is
// enforced through systemd user scopes, each starts inside its own transient scope under
// hermesshort.slice with the policy's short_workers limits (kernel-enforced on the whole tree);
// with the direct cgroup fallback it gets its own limited cgroup under HERMES_MCP_CGROUP_ROOT
// instead (see shortWorkerCgroup); when the policy cannot be enforced at all, execute_code and
// Hermes calls are refused before any worker exists. Terminal workers are never scoped, since
// direct terminal is refused under the policy. Job workers get their scope from the jobs adapter
// (hermesjobs.slice, the job's profile).

/** The slice short workers' scopes (execute_code units, Hermes call workers) go under. */
export const SHORT_WORKER_SLICE = 'hermesshort.slice';

/** One execute_code unit's init (workers/execute/unit.py), run by the configured Python. */
const EXECUTE_UNIT = join(packageRoot(), 'workers', 'execute', 'unit.py');
/** The Node helper a unit starts for the script's terminal commands. */
const EXECUTE_COMMANDS = join(packageRoot(), 'dist', 'workers', 'execute-commands.js');
/** The warm interpreter that forks execute_code units (zygote.py) and the modules it imports, all in one directory. */
const EXECUTE_PYTHON_DIR = join(packageRoot(), 'workers', 'execute');
/** A Hermes call worker's script (workers/hermes-call/run.py), run by Hermes' own interpreter. */
const HERMES_CALL = join(packageRoot(), 'workers', 'hermes-call', 'run.py');
/** The zygote only dies with the gateway: no namespace of its own (each unit it forks gets one). */
const ZYGOTE_PREFIX = ['setpriv', '--pdeathsig', 'KILL'];

/** The worker kinds, by entry, and the protocol each speaks. */
export interface WorkerProtocols {
  'terminal-worker': TerminalProtocol;
  'execute-unit': ExecuteUnitProtocol;
  'process-worker': ProcessProtocol;
  'execute-zygote': ZygoteProtocol;
  'lsp-worker': LspProtocol;
  'graph-worker': GraphProtocol;
  'hermes-tools-worker': HermesToolsProtocol;
  'hermes-call': HermesCallProtocol;
}
export type WorkerEntry = keyof WorkerProtocols;

/** Workers that serve many requests and only exit when told to (any other exit is a crash). */
const LONG_LIVED_WORKERS: ReadonlySet<WorkerEntry> = new Set<WorkerEntry>(['terminal-worker', 'lsp-worker', 'graph-worker', 'hermes-tools-worker']);

const PROTOCOLS: { [E in WorkerEntry]: WorkerProtocol<WorkerProtocols[E]> } = {
  'terminal-worker': terminalProtocol,
  'execute-unit': executeUnitProtocol,
  'process-worker': processProtocol,
  'execute-zygote': zygoteProtocol,
  'lsp-worker': lspProtocol,
  'graph-worker': graphProtocol,
  'hermes-tools-worker': hermesToolsProtocol,
  'hermes-call': hermesCallProtocol,
};

export interface SpawnOptions {
  cwd?: string;
  env?: Record<string, string>;
  scope?: readonly string[];
  onFailure?: (reason: string) => void;
  /** The execute-zygote only: the staged zygote.py to run (stageZygoteCode). */
  script?: string;
  /** The hermes-call worker only: the Hermes interpreter that runs it. */
  interpreter?: string;
}

export interface WorkerRuntime {
  isolation: IsolationReport;
  config: GatewayConfig;
  /** The environment of workers and everything they run: Hermes' scrubbing rules applied. */
  childEnv: Record<string, string>;
  /** The host resource policy and how it is enforced here. */
  resources: ResourceState;
  /** Whether short workers (execute_code units, Hermes call workers) run in systemd scopes (policy enforced through systemd). */
  scoped: boolean;
  /**
   * A fresh cgroup `<kind>-<hex>` with the short_workers limits for one short worker when the
   * policy is enforced through the direct cgroup fallback (the caller moves the worker in before
   * its script or Hermes' code runs, and removes it after); undefined otherwise.
   */
  shortWorkerCgroup(kind?: ShortWorkerKind): CgroupLimit | undefined;
  /**
   * A fresh private directory `<kind>-XXXXXX` (0700) under the state root, recording this gateway
   * as its owner (removed by the caller; a killed gateway's are removed by the next one to start).
   */
  privateDir(kind: PrivateDirKind): string;
  spawnWorker<E extends WorkerEntry>(entry: E, options?: SpawnOptions): WorkerProcess<WorkerProtocols[E]>;
  /** Logs a worker's failure (for workers not spawned here, such as zygote-forked units). */
  reportWorkerFailure: WorkerFailureLog;
  /** Pids of the workers currently alive (for usage sampling). */
  liveWorkerPids(): number[];
  /** Told of every worker spawned, and again once it announces readiness (the gateway's /metrics sets it). */
  spawnObserver?: (kind: WorkerEntry, readySeconds?: number) => void;
}

/** The short workers' names in their scopes and cgroups: an execute_code unit's, a Hermes call worker's. */
type ShortWorkerKind = 'hermes-exec' | 'hermes-call';

/** Where a worker's failure (protocol violation, crash) is reported; the worker is already dead. */
type WorkerFailureLog = (entry: string, reason: string) => void;

export function createWorkerRuntime(config: GatewayConfig, env: NodeJS.ProcessEnv, onWorkerFailure: WorkerFailureLog = () => {}): WorkerRuntime {
  const isolation = detectIsolation(config.isolation);
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  // mkdir leaves a directory that was already there as it is: the workers' sockets and scripts live
  // under it, so one another account can change (or a link to one) is refused, not used.
  const unsafe = stateDirProblem(config.stateDir);
  if (unsafe) {
    throw new ConfigError(
      `${ErrorCode.STATE_DIR_UNSAFE}: ${unsafe}; the workers' sockets and scripts are kept there, so another account could reach or replace them: ` +
        `remove it (the gateway makes it again, 0700, its own) or set HERMES_MCP_STATE_DIR to a directory only you can write`,
    );
  }
  const childEnv = scrubChildEnv(env);
  // Probed once, and only when it matters: without a resource policy systemd-run is never run. The
  // probe gets the workers' own environment, so it finds the same systemd-run (PATH) and reaches the
  // same user manager (XDG_RUNTIME_DIR) the scoped spawns will.
  const resources = loadResourceState(config.resourcePolicy, childEnv, config.cgroupRoot);
  const shortLimits = shortWorkerLimits(resources);
  const scoped = resources.enforcement === 'systemd' && shortLimits !== undefined;
  const live = new Set<Pick<WorkerProcess<ProtocolMessages>, 'alive' | 'pid'>>();
  const runtime: WorkerRuntime = {
    liveWorkerPids: () => [...live].flatMap((w) => (w.alive && w.pid ? [w.pid] : [])),
    isolation,
    config,
    childEnv,
    resources,
    scoped,
    shortWorkerCgroup(kind = 'hermes-exec') {
      if (resources.enforcement !== 'cgroup' || !shortLimits) return undefined;
      return new CgroupLimit(resources.cgroupRoot!, `${kind}-${randomBytes(8).toString('hex')}`, shortLimits);
    },
    privateDir(kind) {
      return makePrivateDir(config.stateDir, kind);
    },
    reportWorkerFailure: onWorkerFailure,
    spawnWorker<E extends WorkerEntry>(entry: E, options: SpawnOptions = {}) {
      const unit = entry === 'execute-unit';
      const zygote = entry === 'execute-zygote';
      const short: ShortWorkerKind | undefined = unit ? 'hermes-exec' : entry === 'hermes-call' ? 'hermes-call' : undefined;
      const worker = new WorkerProcess<WorkerProtocols[E]>({
        protocol: PROTOCOLS[entry],
        // An execute_code unit is a small Python init, not a Node worker: a unit is prepared for
        // every call, and a Node start-up would cost more than the script's own interpreter. The
        // zygote that forks units gets the same stdio as a unit, so the interpreter it hands on to
        // every unit has set up sys.stdin/stdout/stderr exactly as a unit's own would.
        ...(unit || zygote
          ? { entry: zygote ? (options.script ?? join(EXECUTE_PYTHON_DIR, 'zygote.py')) : EXECUTE_UNIT, interpreter: config.python, scriptIo: true }
          : entry === 'hermes-call'
            ? { entry: HERMES_CALL, interpreter: hermesCallInterpreter(options) }
            : { entry: join(packageRoot(), 'dist', 'workers', `${entry}.js`) }),
        isolation: zygote ? { ...isolation, prefix: ZYGOTE_PREFIX } : isolation,
        ...(options.scope
          ? { scope: options.scope }
          : scoped && shortLimits && short
            ? { scope: scopeArgv({ unit: `${short}-${randomBytes(8).toString('hex')}`, slice: SHORT_WORKER_SLICE, limits: shortLimits }) }
            : {}),
        env: { ...childEnv, ...options.env, ...(unit || zygote ? { HERMES_MCP_NODE: process.execPath, HERMES_MCP_COMMANDS_ENTRY: EXECUTE_COMMANDS } : {}) },
        cwd: options.cwd ?? '/',
        maxFrameBytes: maxFrameBytes(config.limits.workerTransportMaxBytes),
        oneShot: !LONG_LIVED_WORKERS.has(entry),
        reapGraceMs: config.limits.workerReapGraceSeconds * 1000,
        onFailure: (reason) => {
          onWorkerFailure(entry, reason);
          options.onFailure?.(reason);
        },
      });
      live.add(worker);
      void worker.exited.then(() => live.delete(worker));
      if (runtime.spawnObserver) observeReadiness(worker, entry, runtime.spawnObserver);
      return worker;
    },
  };
  return runtime;
}

function hermesCallInterpreter(options: SpawnOptions): string {
  if (!options.interpreter) throw new Error('a hermes-call worker needs the Hermes interpreter (SpawnOptions.interpreter)');
  return options.interpreter;
}

/** Reports the spawn now and its latency once the worker's first `ready` frame arrives. */
function observeReadiness(worker: Pick<WorkerProcess<ProtocolMessages>, 'exited'> & { onFrame(handler: (message: { type: string }) => void): () => void }, entry: WorkerEntry, observer: NonNullable<WorkerRuntime['spawnObserver']>): void {
  const spawnedAt = performance.now();
  observer(entry);
  const off = worker.onFrame((message) => {
    if (message.type !== 'ready') return;
    off();
    observer(entry, (performance.now() - spawnedAt) / 1000);
  });
  void worker.exited.then(off);
}

/**
 * Copies the zygote and the modules it imports (workers/execute/*.py) into a new directory `workers`
 * under `dir` (the zygote's own private directory, beside its unit socket) and returns the copy of
 * zygote.py to run. Whoever runs the zygote can use that socket, but need not be able to enter the
 * package: a checkout or an install under a directory only root may enter (/root/...). The copy is
 * made fresh (exclusive creates, so nothing already there is used) and read-only to others.
 */
export function stageZygoteCode(dir: string): string {
  const code = join(dir, 'workers');
  mkdirSync(code, { mode: 0o755 }); // not recursive: throws if it already exists
  chmodSync(code, 0o755); // whatever the umask
  for (const name of readdirSync(EXECUTE_PYTHON_DIR)) {
    if (!name.endsWith('.py')) continue;
    const target = join(code, name);
    writeFileSync(target, readFileSync(join(EXECUTE_PYTHON_DIR, name)), { flag: 'wx', mode: 0o644 });
    chmodSync(target, 0o644);
  }
  return join(code, 'zygote.py');
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
