// Owner leases, release hooks and working directories.
//
// An owner (a legacy MCP session or a capability token) holds a lease for every call of a
// `holdsLease` tool it has running. Such work is counted until it actually settles, even after the
// HTTP waiter gave up, so /healthz never reports "idle" while a worker is still doing something. When an owner ends
// (session_close, expiry, legacy session deleted) its resources are released only after its leases
// drain: cleanup must not race the work that is still using those resources.
//
// An owner's working directory is kept here too: where its last terminal command ended (the
// terminal records it), which its file tools and execute_code scripts start from. It is forgotten
// when the owner ends.

/** Something that holds per-owner resources (processes, browser bindings) and can let them go. */
export type ReleaseHook = (ownerId: string) => Promise<void> | void;

export interface OwnerRegistryOptions {
  /** The working directory of an owner whose terminal has not run a command yet (HERMES_MCP_TERMINAL_CWD). */
  defaultCwd: string;
  /** A release hook threw (logged by the caller); the other hooks still run. */
  onHookError?: (name: string, ownerId: string, error: unknown) => void;
}

export class OwnerRegistry {
  private readonly leases = new Map<string, number>();
  private readonly drainWaiters = new Map<string, Array<() => void>>();
  private readonly hooks: Array<{ name: string; hook: ReleaseHook }> = [];
  private readonly cwds = new Map<string, string>();
  private readonly onHookError: NonNullable<OwnerRegistryOptions['onHookError']>;
  private nativeInflight = 0;

  constructor(private readonly options: OwnerRegistryOptions) {
    this.onHookError = options.onHookError ?? (() => {});
  }

  /**
   * The owner's working directory: where its last terminal command ended, else the default (an
   * owner-less call, or before its first command). Relative paths of its file tools resolve here.
   */
  readonly cwdFor = (ownerId: string): string => this.cwds.get(ownerId) ?? this.options.defaultCwd;

  /** The terminal records where an owner's command ended. */
  setCwd(ownerId: string, cwd: string): void {
    this.cwds.set(ownerId, cwd);
  }

  /** Execution adapters register here what must be released when an owner ends. */
  registerReleaseHook(name: string, hook: ReleaseHook): void {
    this.hooks.push({ name, hook });
  }

  get inflightNativeCalls(): number {
    return this.nativeInflight;
  }

  leaseCount(ownerId: string): number {
    return this.leases.get(ownerId) ?? 0;
  }

  /**
   * Runs work under the owner's lease. The returned promise settles with the work; the
   * counters drop only when the work itself settles, never when a caller stops waiting.
   */
  async runLeased<T>(ownerId: string, work: () => Promise<T>): Promise<T> {
    this.leases.set(ownerId, this.leaseCount(ownerId) + 1);
    this.nativeInflight++;
    try {
      return await work();
    } finally {
      this.nativeInflight--;
      const left = this.leaseCount(ownerId) - 1;
      if (left > 0) this.leases.set(ownerId, left);
      else {
        this.leases.delete(ownerId);
        for (const wake of this.drainWaiters.get(ownerId) ?? []) wake();
        this.drainWaiters.delete(ownerId);
      }
    }
  }

  private waitForDrain(ownerId: string): Promise<void> {
    if (this.leaseCount(ownerId) === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.drainWaiters.get(ownerId) ?? [];
      list.push(resolve);
      this.drainWaiters.set(ownerId, list);
    });
  }

  /** Waits for the owner's native work to finish, forgets its working directory, then asks every hook to release its resources. */
  async release(ownerId: string): Promise<void> {
    await this.waitForDrain(ownerId);
    this.cwds.delete(ownerId);
    for (const { name, hook } of this.hooks) {
      try {
        await hook(ownerId);
      } catch (error) {
        this.onHookError(name, ownerId, error);
      }
    }
  }
}
