import { randomBytes, timingSafeEqual } from 'node:crypto';
import { tokenDigest } from '../edge/bearer.js';
import type { Statement } from 'better-sqlite3';
import type { AuthDatabase } from './auth-db.js';
import { SCOPE_FULL, SCOPE_READ, type Scope } from '../../core/scopes.js';

// Named static bearer tokens, for clients that can send a header (Hermes' own MCP client, Claude
// Code, scripts, the bridge profile). A token is 32 random bytes (base64url), shown once by the
// operator CLI and stored only as its SHA-256. The gateway keeps the digests in memory and compares
// a presented token's digest with every one of them in constant time; it reloads them when another
// connection (the CLI) changed the database, so a created, rotated or revoked token applies at once.

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const TOKEN_PREFIX = 'hmcp_';

export interface StaticTokenRecord {
  name: string;
  scope: Scope;
  created_at: number;
}

export function assertTokenName(name: string): void {
  if (!NAME.test(name)) throw new Error(`token name ${JSON.stringify(name)} must be 1-64 of A-Z a-z 0-9 _ . - (starting with a letter or digit)`);
}

/**
 * Creates (or, with `rotate`, replaces) the token `name`; returns the plain token, which is never
 * stored, and its scope. A rotation keeps the stored scope unless `scope` names another: replacing a
 * secret must never widen what it grants. A new token without `scope` is full.
 */
export function issueStaticToken(db: AuthDatabase, name: string, scope: Scope | undefined, options: { rotate: boolean; now?: number }): { token: string; scope: Scope } {
  assertTokenName(name);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const digest = tokenDigest(token).toString('hex');
  const existing = db.prepare('SELECT scope FROM static_tokens WHERE name = ?').get(name) as { scope: string } | undefined;
  if (existing && !options.rotate) throw new Error(`a token named ${name} already exists; rotate it with: hermes-mcp-auth token rotate ${name}`);
  if (!existing && options.rotate) throw new Error(`no token named ${name}; create it with: hermes-mcp-auth token create ${name}`);
  const stored: Scope = existing ? (existing.scope === SCOPE_FULL ? SCOPE_FULL : SCOPE_READ) : SCOPE_FULL;
  const granted = scope ?? stored;
  db.prepare(
    'INSERT INTO static_tokens (name, digest, scope, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET digest = excluded.digest, scope = excluded.scope, created_at = excluded.created_at',
  ).run(name, digest, granted, options.now ?? Date.now());
  return { token, scope: granted };
}

export function listStaticTokens(db: AuthDatabase): StaticTokenRecord[] {
  return db.prepare('SELECT name, scope, created_at FROM static_tokens ORDER BY name').all() as StaticTokenRecord[];
}

export function revokeStaticToken(db: AuthDatabase, name: string): boolean {
  return db.prepare('DELETE FROM static_tokens WHERE name = ?').run(name).changes > 0;
}

interface Loaded {
  name: string;
  scope: Scope;
  digest: Buffer;
}

/** The gateway's view: verifies a presented token against every stored digest. */
export class StaticTokenVerifier {
  private loaded: Loaded[] = [];
  private version = -1;
  /** Prepared once: this runs on every request (db.pragma() would compile it each time). */
  private readonly dataVersion: Statement<[], number>;

  constructor(private readonly db: AuthDatabase) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** The token's name and scope, or undefined. Every stored digest is compared, each in constant time. */
  verify(token: string): { name: string; scope: Scope } | undefined {
    this.refresh();
    const presented = tokenDigest(token);
    let match: Loaded | undefined;
    for (const t of this.loaded) if (timingSafeEqual(presented, t.digest) && !match) match = t;
    return match ? { name: match.name, scope: match.scope } : undefined;
  }

  get count(): number {
    this.refresh();
    return this.loaded.length;
  }

  /** SQLite's data_version changes when another connection commits: reload only then. */
  private refresh(): void {
    const version = this.dataVersion.get()!;
    if (version === this.version) return;
    this.version = version;
    this.loaded = (this.db.prepare('SELECT name, scope, digest FROM static_tokens').all() as Array<{ name: string; scope: string; digest: string }>).map((r) => ({
      name: r.name,
      scope: r.scope === SCOPE_FULL ? SCOPE_FULL : 'hermes:read',
      digest: Buffer.from(r.digest, 'hex'),
    }));
  }
}
