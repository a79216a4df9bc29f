import { Zygote } from './zygote.js';
import type { ExecuteUnit } from './unit.js';

export type { ExecuteUnit } from './unit.js';
import type { HermesRelease } from '../../../platform/hermes/release.js';
import type { WorkerRuntime } from '../../../platform/spawning/worker-runtime.js';

// Where execute_code units come from. Forked by the unit zygote (zygote.ts) whenever that
// gives every guarantee a spawned unit has; otherwise spawned one by one, as
// `setpriv ... unshare ... python3 unit.py` under the host's isolation prefix:
//
// - degraded isolation (subreaper, process-group): no PID namespace to fork into;
// - the resource policy enforced through systemd scopes: `systemd-run --scope` can only start a new
//   process in a scope, not move a forked one into it (the direct cgroup fallback works with both:
//   the unit's processes are moved into its cgroup before its script gets the code);
// - a zygote that cannot start here (it checks that it can make a namespace and mount /proc): said
//   once in the log, and every later unit is spawned.
//
// A zygote that dies after it was up takes its units with it; the next unit starts a new one.

/** The settings every unit's interpreter starts with, injected after scrubbing as Hermes does. */
function unitPythonEnv(runtime: WorkerRuntime): Record<string, string> {
  return {
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    PYTHONUTF8: '1',
    ...(runtime.config.hermesTimezone ? { TZ: runtime.config.hermesTimezone } : {}),
  };
}

/** Why units cannot come from a zygote on this runtime at all, if they cannot. */
function zygoteRefusal(runtime: WorkerRuntime): string | undefined {
  if (runtime.isolation.mode !== 'pid-namespace') return `isolation is ${runtime.isolation.mode}, not pid-namespace`;
  if (runtime.scoped) return 'units run in systemd scopes, which only a new process can be started in';
  return undefined;
}

/**
 * What hermes_tools' signatures follow of the Hermes the gateway fronts, as that Hermes'
 * generate_hermes_tools_module writes them (tools/code_execution_tool.py): read_file's default
 * limit, and whether search_files takes `order`.
 */
export function stubSignatures(release: HermesRelease): Record<string, string> {
  return {
    HERMES_MCP_STUB_READ_FILE_LIMIT: release.has('readFileDefaultLimit2000') ? '2000' : '500',
    ...(release.has('searchFilesOrder') ? { HERMES_MCP_STUB_SEARCH_ORDER: 'discovery' } : {}),
  };
}

export class ExecuteUnitSource {
  private zygote?: Zygote;
  /** Why units are spawned one by one from now on (undefined: the zygote is used). */
  private zygoteOff?: string;
  private closed = false;

  /**
   * `stub`: what hermes_tools' signatures follow of the Hermes fronted (stubSignatures
   * below). hermes_tools reads it once, where it is imported (the zygote, or a spawned
   * unit's script process), and removes it before any script runs; so a forked unit never gets it.
   */
  constructor(
    private readonly runtime: WorkerRuntime,
    private readonly stub: Record<string, string> = {},
  ) {
    this.zygoteOff = zygoteRefusal(runtime);
  }

  /** The current zygote's pid, if one is running (for tests and diagnostics). */
  get zygotePid(): number | undefined {
    return this.zygote?.alive ? this.zygote.pid : undefined;
  }

  /** A new unit in `cwd` with `env` added to the scrubbed environment (the RPC endpoint, ...). */
  async start(options: { cwd: string; env: Record<string, string> }): Promise<ExecuteUnit> {
    const env = { ...unitPythonEnv(this.runtime), ...options.env };
    const zygote = await this.readyZygote();
    if (zygote?.alive) return zygote.fork({ cwd: options.cwd, env, onFailure: (reason) => this.runtime.reportWorkerFailure('execute-unit', reason) });
    return this.runtime.spawnWorker('execute-unit', { cwd: options.cwd, env: { ...env, ...this.stub } });
  }

  private async readyZygote(): Promise<Zygote | undefined> {
    if (this.zygoteOff !== undefined || this.closed) return undefined;
    if (!this.zygote?.alive) this.zygote = new Zygote(this.runtime, { ...unitPythonEnv(this.runtime), ...this.stub });
    const zygote = this.zygote;
    try {
      await zygote.ready;
      return zygote;
    } catch (e) {
      if (this.zygoteOff === undefined && !this.closed) {
        this.zygoteOff = e instanceof Error ? e.message : String(e);
        this.runtime.reportWorkerFailure('execute-zygote', `unit zygote unavailable, execute_code units are spawned one by one from now on: ${this.zygoteOff}`);
      }
      return undefined;
    }
  }

  /** Stops the zygote (and with it any unit it still holds). */
  async close(): Promise<void> {
    this.closed = true;
    await this.zygote?.close();
  }
}
