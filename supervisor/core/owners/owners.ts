import { createHash, randomBytes } from 'node:crypto';
import { formatDuration } from '../../platform/duration.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { clientToken } from '../../../shared/tokens.js';

// Owners: their leases, release hooks and working directories, and the capability tokens that
// name the owners of sessionless clients (CapabilityStore, below).
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

// Capability sessions for clients without a durable MCP session (the 2026-07-28 era is sessionless).
// A token is 192 random bits; only its SHA-256 is kept, so a heap dump or log line never holds a
// usable credential. Expiry is fixed at open time (never extended by use): a leaked token dies on
// schedule. Revoked and expired tokens leave a small tombstone so a client is told *why* its token
// stopped working instead of a generic "invalid".

interface CapabilityRecord {
  /** Internal id used as the owner id (`cap:<id>`); never the token, never derived from it. */
  id: string;
  createdAt: number;
  expiresAt: number;
  /** Set when opened inside a legacy MCP session: the token is then valid only in that session. */
  boundSession?: string;
  /** With authentication on: the credential that opened it (principalKey); no other credential may use it. */
  principal?: string;
  revoked: boolean;
  /** Set once the expiry sweep has released this owner's resources. */
  swept?: boolean;
}

interface OpenedCapability {
  token: string;
  id: string;
  expiresAt: number;
}

const TOMBSTONE_LIMIT = 4096;

// A client that reconnects for every call lands here: each connection is a new MCP session, so a
// token opened on an earlier one is foreign. Say what works instead of only what failed.
const FOREIGN_MESSAGE =
  'session_token was opened inside another MCP session, and a token opened inside an MCP session works only on that session. ' +
  'Use it on the MCP session that opened it (keep that connection open rather than reconnecting per call), call session_open on this session for a token of its own, ' +
  'or open the token from a sessionless 2026-07-28 client, where it works on every request.';

const OTHER_CREDENTIAL_MESSAGE =
  'session_token was opened with another credential (OAuth client or static token), and a token works only for the credential that opened it; call session_open with this one for a token of its own.';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class CapabilityStore {
  private readonly byHash = new Map<string, CapabilityRecord>();

  constructor(
    private readonly options: { ttlMs: number; maxActive: number; now: () => number; random?: (size: number) => Buffer },
  ) {}

  private isActive(r: CapabilityRecord): boolean {
    return !r.revoked && r.expiresAt > this.options.now();
  }

  activeCount(): number {
    let n = 0;
    for (const r of this.byHash.values()) if (this.isActive(r)) n++;
    return n;
  }

  open(boundSession?: string, principal?: string): OpenedCapability {
    this.prune();
    if (this.activeCount() >= this.options.maxActive) {
      throw new GatewayError(
        ErrorCode.SESSION_LIMIT_REACHED,
        `at most ${this.options.maxActive} capability sessions may be open at once; close one with session_close or wait for one to expire`,
      );
    }
    // Never one that output redaction would alter on its way to the client (shared/tokens.ts).
    const token = clientToken('hmcp_', 24, this.options.random);
    const now = this.options.now();
    const record: CapabilityRecord = {
      id: randomBytes(9).toString('base64url'),
      createdAt: now,
      expiresAt: now + this.options.ttlMs,
      revoked: false,
      ...(boundSession ? { boundSession } : {}),
      ...(principal !== undefined ? { principal } : {}),
    };
    this.byHash.set(hashToken(token), record);
    return { token, id: record.id, expiresAt: record.expiresAt };
  }

  /**
   * Resolves a presented token to its live record, or throws a stable error saying why not.
   * `principal` is the presenting credential's principalKey (undefined without authentication).
   */
  resolve(token: string, fromSession?: string, principal?: string): CapabilityRecord {
    const record = this.byHash.get(hashToken(token));
    if (!record) throw new GatewayError(ErrorCode.SESSION_TOKEN_INVALID, 'session_token is not a token this gateway issued');
    // Checked first: another credential learns nothing about the token's state.
    if (record.principal !== undefined && record.principal !== principal) throw new GatewayError(ErrorCode.SESSION_TOKEN_FOREIGN, OTHER_CREDENTIAL_MESSAGE);
    if (record.revoked) throw new GatewayError(ErrorCode.SESSION_TOKEN_REVOKED, 'session_token was closed with session_close; open a new one');
    if (record.expiresAt <= this.options.now()) {
      throw new GatewayError(
        ErrorCode.SESSION_TOKEN_EXPIRED,
        `session_token expired (tokens live ${formatDuration(this.options.ttlMs / 1000)} from session_open); open a new one`,
      );
    }
    if (record.boundSession && record.boundSession !== fromSession) {
      throw new GatewayError(ErrorCode.SESSION_TOKEN_FOREIGN, FOREIGN_MESSAGE);
    }
    return record;
  }

  /** Revokes a capability the caller already resolved (its id is the owner id's suffix). */
  revokeById(id: string): boolean {
    for (const r of this.byHash.values()) {
      if (r.id === id && !r.revoked) {
        r.revoked = true;
        return true;
      }
    }
    return false;
  }

  /** Drops expired/revoked records beyond the tombstone budget, oldest first. */
  private prune(): void {
    if (this.byHash.size <= TOMBSTONE_LIMIT) return;
    for (const [hash, r] of this.byHash) {
      if (this.byHash.size <= TOMBSTONE_LIMIT) break;
      if (!this.isActive(r)) this.byHash.delete(hash);
    }
  }

  /** Records expired since the last sweep (their owners' resources must be released). */
  sweepExpired(): CapabilityRecord[] {
    const now = this.options.now();
    const expired: CapabilityRecord[] = [];
    for (const r of this.byHash.values()) {
      if (!r.revoked && r.expiresAt <= now && !r.swept) {
        r.swept = true;
        expired.push(r);
      }
    }
    return expired;
  }
}
