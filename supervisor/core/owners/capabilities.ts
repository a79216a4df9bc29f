import { createHash, randomBytes } from 'node:crypto';
import { formatDuration } from '../../platform/duration.js';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';

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
    private readonly options: { ttlMs: number; maxActive: number; now: () => number },
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
    const token = 'hmcp_' + randomBytes(24).toString('base64url');
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
