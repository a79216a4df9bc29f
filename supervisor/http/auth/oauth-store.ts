import type { Adapter, AdapterPayload } from 'oidc-provider';
import { sha256Hex, type AuthDatabase } from './auth-db.js';

// oidc-provider's storage adapter on the authentication database. oidc-provider keys opaque
// artefacts by their own value (an access token's id IS the token, an authorization code's id IS
// the code), so the row key is the id's SHA-256 and the payload is stored without its `jti`: a copy
// of the database holds no usable token, code or session id. find() is given the id, so it puts the
// `jti` back. Expired rows are dropped on read and swept by `sweep()`.

interface Row {
  payload: string;
  expires_at: number | null;
  consumed_at: number | null;
}

/** oidc-provider's error shape (status, exposed `error`), without importing oidc-provider here (the CLI imports this file). */
function alreadyConsumed(): Error {
  return Object.assign(new Error('invalid_grant'), { error: 'invalid_grant', error_description: 'grant request is invalid', status: 400, statusCode: 400, expose: true });
}

export class SqliteOidcAdapter implements Adapter {
  constructor(
    private readonly db: AuthDatabase,
    private readonly model: string,
    private readonly now: () => number = Date.now,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const { jti: _jti, ...rest } = payload;
    const expiresAt = expiresIn ? this.now() + expiresIn * 1000 : null;
    this.db
      .prepare(
        `INSERT INTO oidc (model, id_hash, payload, grant_id, uid_hash, client_id, expires_at, consumed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
         ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           uid_hash = excluded.uid_hash, client_id = excluded.client_id, expires_at = excluded.expires_at`,
      )
      .run(
        this.model,
        sha256Hex(id),
        JSON.stringify(rest),
        // A Grant row carries its own id here, so revoking by grant id removes the grant itself too.
        payload.grantId ?? (this.model === 'Grant' ? id : null),
        payload.uid ? sha256Hex(payload.uid) : null,
        payload.clientId ?? payload.client_id ?? null,
        expiresAt,
      );
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const row = this.db.prepare('SELECT payload, expires_at, consumed_at FROM oidc WHERE model = ? AND id_hash = ?').get(this.model, sha256Hex(id)) as Row | undefined;
    return this.revive(row, id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const row = this.db.prepare('SELECT id_hash, payload, expires_at, consumed_at FROM oidc WHERE model = ? AND uid_hash = ?').get(this.model, sha256Hex(uid)) as (Row & { id_hash: string }) | undefined;
    // The session's own id is not recoverable from its hash; oidc-provider only needs the payload here.
    return this.revive(row, undefined);
  }

  async findByUserCode(): Promise<undefined> {
    // The device flow is not enabled: there are no user codes.
    return undefined;
  }

  /**
   * Marks a code or refresh token used, once: two requests that both found it unused (a replay
   * racing the real client) cannot both consume it; the second is refused as invalid_grant.
   */
  async consume(id: string): Promise<void> {
    const changed = this.db.prepare('UPDATE oidc SET consumed_at = ? WHERE model = ? AND id_hash = ? AND consumed_at IS NULL').run(Math.floor(this.now() / 1000), this.model, sha256Hex(id)).changes;
    if (changed === 0) throw alreadyConsumed();
  }

  async destroy(id: string): Promise<void> {
    this.db.prepare('DELETE FROM oidc WHERE model = ? AND id_hash = ?').run(this.model, sha256Hex(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    this.db.prepare('DELETE FROM oidc WHERE grant_id = ?').run(grantId);
  }

  private revive(row: Row | undefined, id: string | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    if (row.expires_at !== null && row.expires_at <= this.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    if (id !== undefined) payload.jti = id;
    if (row.consumed_at !== null) payload.consumed = row.consumed_at;
    return payload;
  }
}

/** A registered client that never got a grant is forgotten after this long (registration is open to anyone). */
const ABANDONED_CLIENT_SECONDS = 24 * 3600;

const APPROVAL_GRACE_MS = 60_000;

/** Drops expired rows, and clients registered a day ago that were never approved (the gateway calls it on a timer). */
export function sweepExpired(db: AuthDatabase, now = Date.now()): void {
  db.prepare('DELETE FROM oidc WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now);
  // An approval row outlives its request by a minute: the interaction's own expiry is counted from a
  // slightly later instant, and an ended request must stay ended until that interaction is gone.
  db.prepare('DELETE FROM approvals WHERE expires_at <= ?').run(now - APPROVAL_GRACE_MS);
  db.prepare(
    `DELETE FROM oidc WHERE model = 'Client' AND json_extract(payload, '$.client_id_issued_at') <= ?
       AND client_id NOT IN (SELECT client_id FROM oidc WHERE model = 'Grant' AND client_id IS NOT NULL)`,
  ).run(Math.floor(now / 1000) - ABANDONED_CLIENT_SECONDS);
}

export interface ClientSummary {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  created_at?: number;
  active_grants: number;
}

/** The registered OAuth clients (for `hermes-mcp-auth clients`). */
export function listClients(db: AuthDatabase): ClientSummary[] {
  const rows = db.prepare("SELECT client_id, payload FROM oidc WHERE model = 'Client'").all() as Array<{ client_id: string; payload: string }>;
  const grants = db.prepare("SELECT count(*) AS n FROM oidc WHERE model = 'Grant' AND client_id = ?");
  return rows.map((r) => {
    const p = JSON.parse(r.payload) as { client_name?: string; redirect_uris?: string[]; client_id_issued_at?: number };
    return {
      client_id: r.client_id,
      client_name: p.client_name ?? '(unnamed)',
      redirect_uris: p.redirect_uris ?? [],
      ...(p.client_id_issued_at ? { created_at: p.client_id_issued_at } : {}),
      active_grants: (grants.get(r.client_id) as { n: number }).n,
    };
  });
}

/** Removes a client and everything issued to it (grants, codes, access and refresh tokens). True when it existed. */
export function revokeClient(db: AuthDatabase, clientId: string): boolean {
  return db.transaction(() => {
    const grantIds = (db.prepare("SELECT DISTINCT grant_id FROM oidc WHERE client_id = ? AND grant_id IS NOT NULL").all(clientId) as Array<{ grant_id: string }>).map((g) => g.grant_id);
    for (const g of grantIds) db.prepare('DELETE FROM oidc WHERE grant_id = ?').run(g);
    db.prepare("DELETE FROM approvals WHERE client_id = ?").run(clientId);
    return db.prepare('DELETE FROM oidc WHERE client_id = ?').run(clientId).changes > 0 || grantIds.length > 0;
    // IMMEDIATE: take the write lock first (waiting on the gateway's writes), instead of reading and
    // then failing to upgrade with SQLITE_BUSY when the gateway wrote in between.
  }).immediate();
}

/** Revokes the grant of one access or refresh token given as itself (only its hash is looked up). True when found. */
export function revokeOAuthToken(db: AuthDatabase, token: string): boolean {
  const row = db.prepare("SELECT grant_id FROM oidc WHERE model IN ('AccessToken', 'RefreshToken') AND id_hash = ?").get(sha256Hex(token)) as { grant_id: string | null } | undefined;
  if (!row) return false;
  db.transaction(() => {
    db.prepare("DELETE FROM oidc WHERE model IN ('AccessToken', 'RefreshToken') AND id_hash = ?").run(sha256Hex(token));
    if (row.grant_id) db.prepare('DELETE FROM oidc WHERE grant_id = ?').run(row.grant_id);
  }).immediate();
  return true;
}
