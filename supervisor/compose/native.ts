import type { Logger } from 'pino';
import type { Adapter } from '../core/adapter.js';
import { OwnerRegistry } from '../core/owners/owners.js';
import type { GatewayConfig } from '../platform/config.js';
import { HermesRelease } from '../platform/hermes/release.js';
import { HermesCaller } from '../platform/hermes/call.js';
import { noHermes, type HermesInstall } from '../platform/hermes/locate.js';
import { ExecuteCodePool, executeCodeTool, scriptToolDispatch } from '../tools/execute-code/index.js';
import { fileAccessFacts } from '../tools/files/access/index.js';
import { fileTools } from '../tools/files/index.js';
import { FileStates } from '../tools/files/state/index.js';
import { processManageTool, ProcessRegistry } from '../tools/processes/process-manage/index.js';
import { TerminalPool, terminalTool } from '../tools/processes/terminal/index.js';
import { sampleWorkerUsage, type WorkerUsage } from '../platform/spawning/usage.js';
import { sweepStalePrivateDirs, type SweepReport } from '../platform/spawning/private-dirs.js';
import { createWorkerRuntime, SHORT_WORKER_SLICE, type WorkerRuntime } from '../platform/spawning/worker-runtime.js';
import { shortWorkerLimits, startRefusal } from '../platform/spawning/resource-policy.js';

// The native adapter: Hermes' file tools, terminal and execute_code, executed by the gateway's own
// isolated workers (the supervisor never runs user commands itself).

const USAGE_SAMPLE_MS = 10_000;

export interface NativeAdapter extends Adapter {
  /** Owner-scoped background processes; the jobs adapter starts its work through it. */
  processes: ProcessRegistry;
  /** The worker runtime (isolation, resource policy), shared with the jobs adapter. */
  runtime: WorkerRuntime;
  /** Calls of Hermes' own functions in the Hermes the gateway fronts (document extraction, cron). */
  hermesCaller: HermesCaller;
  /** An owner's current directory (where its terminal's last command ended, else the default): relative job workdirs resolve against it. */
  cwdFor(ownerId: string): string;
}

/**
 * `owners`: the gateway's owner registry (Gateway.create's `owners`), where the terminal records
 * each owner's cwd and the file tools and execute_code read it; an adapter on its own gets one of
 * its own. `release`: the Hermes Agent the gateway fronts, which the file, terminal and process tools follow
 * (the newest the gateway knows by default); `install`: where that Hermes is, for calls of its own
 * functions (none by default).
 */
export function nativeAdapter(config: GatewayConfig, log: Logger, owners = new OwnerRegistry({ defaultCwd: config.terminalCwd }), release: HermesRelease = new HermesRelease(undefined), install: HermesInstall = noHermes()): NativeAdapter {
  const runtime = createWorkerRuntime(config, config.inheritedEnvironment, (entry, reason) => log.warn({ event: 'worker_failed', worker: entry, reason }, 'worker failed'));
  const hermesCaller = new HermesCaller(runtime, install);
  sweepStateDir(config, log);
  logIsolation(runtime, log);
  const terminals = new TerminalPool(runtime, owners);
  const { cwdFor } = owners;
  const access = { mode: config.fileAccess, roots: config.roots };
  const { fileStates, fileDeps } = fileToolParts(config, cwdFor, access, release, hermesCaller);
  const files = fileTools(fileDeps);
  // hermes_tools file calls from a script are nested calls of its execute_code call (script-tools.ts).
  const exec = new ExecuteCodePool(runtime, scriptToolDispatch(files.map((tool) => tool.name)), release);
  exec.prewarm(); // nothing is prepared while execute_code would be refused
  const processes = new ProcessRegistry(runtime, release);
  const usage = usageSampler(runtime, log);
  return {
    name: 'native',
    processes,
    runtime,
    hermesCaller,
    cwdFor,
    source: {
      name: 'native',
      // Built when the catalog asks: read_file and execute_code name Hermes' tools only if they were catalogued.
      tools: (catalogued) => [...fileTools({ ...fileDeps, catalogued }), terminalTool(terminals, runtime, release), executeCodeTool(exec, runtime, cwdFor, catalogued), processManageTool(processes, runtime, release)],
    },
    readiness: [
      {
        name: 'native_execution',
        probe: () => ({
          ready: true,
          status: runtime.isolation.degraded ? 'degraded' : 'ok',
          details: { isolation: runtime.isolation.mode, reason: runtime.isolation.reason },
        }),
      },
    ],
    // Beside the components, like job_admission: neither how far the file tools reach nor whether
    // execute_code may start units under the resource policy ever changes readiness.
    readyFacts: () => ({ file_access: fileAccessFacts(access), short_worker_admission: shortWorkerAdmission(runtime) }),
    // Every tool call but the reads resets the task's repeated-read counters.
    callHook: fileStates.toolCalled,
    async releaseHook(ownerId) {
      fileStates.release(ownerId);
      await Promise.all([terminals.release(ownerId), processes.release(ownerId)]);
    },
    health: () => ({
      isolation: runtime.isolation.mode,
      isolation_degraded: runtime.isolation.degraded,
      systemd_scope: runtime.scoped,
      terminal_workers: terminals.activeWorkers,
      terminal_owners: terminals.owned,
      terminal_workers_idle_released: terminals.idleReleases,
      background_processes: processes.running,
      worker_usage: usage.latest(),
    }),
    async close() {
      usage.stop();
      await Promise.all([exec.close(), terminals.closeAll(), processes.closeAll()]);
    },
  };
}

/**
 * /readyz.short_worker_admission: whether execute_code may start units (and Hermes calls their
 * workers) here and how the resource policy's short_workers limits are applied to them. Reported beside control-plane readiness, like
 * job_admission: a resource outage refuses execute_code without failing /readyz (which would send
 * the tunnel into a reconnect loop).
 */
function shortWorkerAdmission(runtime: WorkerRuntime): Record<string, unknown> {
  const { resources } = runtime;
  const refusal = startRefusal(resources, 'execute_code');
  const limits = refusal ? undefined : shortWorkerLimits(resources);
  return {
    accepting: refusal === undefined,
    resource_mode: resources.mode,
    enforcement: resources.enforcement,
    ...(limits && resources.enforcement === 'systemd' ? { slice: SHORT_WORKER_SLICE } : {}),
    ...(limits && resources.enforcement === 'cgroup' ? { cgroup_root: resources.cgroupRoot } : {}),
    ...(limits ? { limits } : {}),
    resource_reason: resources.reason,
    ...(refusal ? { reasons: [resources.reason], error: refusal.code } : {}),
  };
}

/**
 * At start: removes the exec/zygote/terminal directories that gateways killed without a stop left
 * in the shared state directory (never a live gateway's: private-dirs.ts), and says how many.
 */
function sweepStateDir(config: GatewayConfig, log: Logger): void {
  let report: SweepReport;
  try {
    report = sweepStalePrivateDirs(config.stateDir, { unrecordedMinAgeMs: config.limits.unrecordedStateDirAgeSeconds * 1000 });
  } catch (e) {
    log.warn({ event: 'state_dir_sweep_failed', state_dir: config.stateDir, reason: e instanceof Error ? e.message : String(e) }, 'could not look for stale state directories');
    return;
  }
  if (report.skipped) {
    log.warn({ event: 'state_dir_sweep_skipped', state_dir: config.stateDir, reason: report.skipped }, 'stale state directories not removed: the state directory is not private');
    return;
  }
  const removed = report.verdicts.filter((v) => v.removed);
  for (const { name, reason } of removed) log.debug({ event: 'stale_state_dir_removed', name, reason });
  if (removed.length > 0) log.info({ event: 'stale_state_dirs_removed', state_dir: config.stateDir, count: removed.length }, `removed ${removed.length} state directories of gateways that are gone`);
}

/** Logs how workers are isolated here and how the resource policy applies to execute_code's units. */
function logIsolation(runtime: WorkerRuntime, log: Logger): void {
  if (runtime.isolation.degraded) log.warn({ event: 'isolation_degraded', mode: runtime.isolation.mode, reason: runtime.isolation.reason }, 'process isolation degraded');
  else log.info({ event: 'isolation', mode: runtime.isolation.mode }, 'process isolation');
  // Under an enforced resource policy, execute_code units run in systemd scopes, else in direct
  // cgroups; when neither is possible execute_code is refused like jobs (never run unlimited).
  const { resources } = runtime;
  if (resources.mode === 'failed') log.error({ event: 'resource_policy_failed', reason: resources.reason }, 'resource policy invalid: jobs and execute_code refused until it is fixed');
  else if (startRefusal(resources, 'execute_code')) log.error({ event: 'resource_policy_unenforceable', reason: resources.reason }, 'resource policy cannot be enforced here: jobs and execute_code refused');
  else if (runtime.scoped) log.info({ event: 'systemd_scope', slice: SHORT_WORKER_SLICE }, 'execute_code workers run in systemd scopes');
  else if (resources.enforcement === 'cgroup') log.info({ event: 'short_worker_cgroup', root: resources.cgroupRoot }, 'execute_code workers run in their own cgroups');
}

/**
 * The file tools' dependencies, and what each owner's file tools saw and wrote (write_file's
 * read-before-overwrite guard), released with the owner.
 */
function fileToolParts(config: GatewayConfig, cwdFor: (ownerId: string) => string, access: { mode: GatewayConfig['fileAccess']; roots: readonly string[] }, release: HermesRelease, hermes: HermesCaller) {
  const fileStates = new FileStates({
    enabled: !config.fileStateGuardDisabled,
    guard: release.has('writeFileReadBeforeOverwrite'),
    maxPaths: config.limits.fileStatePathsPerOwner,
    ledgerTtlMs: config.limits.fileStateLedgerTtlSeconds * 1000,
    maxLedgers: config.limits.fileStateMaxLedgers,
  });
  const { limits } = config;
  const fileDeps = { hermesHome: config.hermesHome, cwdFor, access, readFileScanMaxBytes: limits.readFileScanMaxBytes, readFileInlineMaxBytes: limits.readFileInlineMaxBytes, maxOutputChars: limits.maxOutputChars, searchPath: config.helperSearchPath, release, fileStates, hermes, readFileDocumentTimeoutSeconds: limits.readFileDocumentTimeoutSeconds, workerTransportMaxBytes: limits.workerTransportMaxBytes, hermesConfigMaxBytes: limits.hermesConfigMaxBytes, searchFilesMaxEntries: limits.searchFilesMaxEntries, searchFilesTimeoutSeconds: limits.searchFilesTimeoutSeconds, writeLintTimeoutSeconds: limits.writeLintTimeoutSeconds, writeLintMaxBytes: limits.writeLintMaxBytes, authFiles: config.auth.required ? config.auth : undefined };
  return { fileStates, fileDeps };
}

/**
 * Worker CPU/RSS, sampled in the background so /healthz stays a cheap read; logged at debug while
 * any worker is alive (every 10 s, it would drown an info log; /healthz shows the latest).
 */
function usageSampler(runtime: WorkerRuntime, log: Logger): { latest(): WorkerUsage; stop(): void } {
  let usage: WorkerUsage = { workers: 0, processes: 0, cpu_percent: 0, rss_bytes: 0 };
  const sampler = setInterval(() => {
    const pids = runtime.liveWorkerPids();
    void sampleWorkerUsage(pids).then((u) => {
      usage = u;
      if (pids.length > 0) log.debug({ event: 'worker_usage', ...u });
    });
  }, USAGE_SAMPLE_MS);
  sampler.unref();
  return { latest: () => usage, stop: () => clearInterval(sampler) };
}
