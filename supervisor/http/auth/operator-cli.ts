import { closeSync, openSync, readSync } from 'node:fs';
import { loadLimits } from '../../../shared/limits.js';
import { SCOPE_FULL, SCOPE_READ } from '../../core/scopes.js';
import { hermesHomeOf } from '../../platform/config.js';
import { gatewayEnvironment } from '../../platform/environment.js';
import { authSettings } from '../../platform/settings/auth.js';
import { AuditLog } from '../edge/audit.js';
import { approveByCode, listPending, lookupByCode } from './approvals.js';
import { openAuthDatabase, openAuthDatabaseReadOnly, type AuthDatabase } from './auth-db.js';
import { listClients, revokeClient, revokeOAuthToken } from './oauth-store.js';
import { issueStaticToken, listStaticTokens, revokeStaticToken } from './static-tokens.js';

// The commands of hermes-mcp-auth, the operator's side of the gateway's authentication on the host
// (bin/auth.ts parses the arguments and prints the usage). They open the same database and audit log
// the gateway uses (the same environment, $HERMES_HOME/.env included: HERMES_HOME,
// HERMES_MCP_AUTH_DATABASE, HERMES_MCP_AUTH_AUDIT_LOG). A token is printed once, here, and never
// logged or stored; an approval code is compared by its hash. The listing commands (pending,
// clients, token list) open the database read-only and never create it: no database yet means
// nothing to list.

export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, refused: 4 } as const;

/**
 * The usage text the bin prints for a command: approve, revoke and token check the shape of their
 * arguments here, once the database is open, and print their usage when it is wrong.
 */
export type UsageOf = (command: 'approve' | 'revoke' | 'token' | 'main') => string;

/** One command as parsed by the bin. */
export interface AuthInvocation {
  command: string;
  /** The positional arguments after the command. */
  args: string[];
  json: boolean;
  /** --read-only: approve with hermes:read whatever was requested. */
  readOnly: boolean;
  /** --yes: approve without asking (what is approved is printed all the same). */
  yes: boolean;
  scope: string | undefined;
}

function out(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? JSON.stringify(value) + '\n' : text + '\n');
}

/** Reports a failure (a JSON line on stdout with --json, else a line on stderr); returns `code`. */
export function fail(json: boolean, code: number, error: string, message: string): number {
  if (json) process.stdout.write(JSON.stringify({ ok: false, error, message }) + '\n');
  else process.stderr.write(`hermes-mcp-auth: ${message}\n`);
  return code;
}

/**
 * One line from the terminal (the operator's answer), read synchronously; empty at end of input or
 * on error. The controlling terminal is opened afresh: Node may have made fd 0 non-blocking.
 */
function readLine(): string {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r');
  } catch {
    return '';
  }
  const byte = Buffer.alloc(1);
  let line = '';
  try {
    for (;;) {
      const n = readSync(fd, byte, 0, 1, null);
      if (n === 0 || byte[0] === 0x0a || byte[0] === 0x0d) return line;
      line += String.fromCharCode(byte[0]!);
    }
  } catch {
    return line;
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs one command in the gateway's environment (`env`, the process environment: $HERMES_HOME/.env
 * is added under it here) and returns its exit code. `usage` words a malformed command.
 */
export function runAuthCommand(call: AuthInvocation, env: NodeJS.ProcessEnv, usage: UsageOf): number {
  const { command, args: rest, json } = call;
  let db: AuthDatabase;
  let audit: AuditLog;
  let maxTries: number;
  try {
    const gateway = gatewayEnvironment(env).env;
    const settings = authSettings(gateway, hermesHomeOf(gateway));
    const limits = loadLimits(gateway);
    if (isListing(command, rest)) return list(command, settings.database, json);
    maxTries = limits.authConsentMaxTries;
    db = openAuthDatabase(settings.database);
    audit = new AuditLog(settings.auditLog, limits.authAuditMaxBytes, (error) => process.stderr.write(`hermes-mcp-auth: audit log: ${String(error)}\n`));
  } catch (e) {
    return fail(json, EXIT.failed, 'config', (e as Error).message);
  }
  const started = performance.now();
  const record = (path: string, outcome: string, facts: { client?: string; scope?: string } = {}) =>
    audit.write({ ts: new Date().toISOString(), ip: 'cli', method: 'CLI', path, status: 0, duration_ms: Math.round(performance.now() - started), grant: 'operator', outcome, ...facts });
  try {
    return run(command, rest, { json, readOnly: call.readOnly, yes: call.yes, scope: call.scope, db, record, maxTries, usage });
  } finally {
    audit.close();
    db.close();
  }
}

/** The commands that only read: pending, clients, token list. */
function isListing(command: string, args: readonly string[]): boolean {
  return command === 'pending' || command === 'clients' || (command === 'token' && args.length === 1 && args[0] === 'list');
}

/** `45s`, `3m 20s`, `1h 5m`: an age or a time left, in seconds. */
function duration(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** The listing commands, on the database opened read-only (none yet: nothing to list). */
function list(command: string, path: string, json: boolean): number {
  let db: AuthDatabase | undefined;
  try {
    db = openAuthDatabaseReadOnly(path);
    const now = Date.now();
    if (command === 'pending') {
      const rows = (db ? listPending(db, now) : []).map((p) => ({
        client_id: p.client_id,
        client_name: p.client_name,
        redirect_uri: p.redirect_uri,
        redirect_host: URL.parse(p.redirect_uri)?.host ?? p.redirect_uri,
        scope: p.scope,
        created_at: new Date(p.created_at).toISOString(),
        expires_at: new Date(p.expires_at).toISOString(),
        age_seconds: Math.max(0, Math.round((now - p.created_at) / 1000)),
        expires_in_seconds: Math.max(0, Math.round((p.expires_at - now) / 1000)),
        approved: p.approved_scope !== null,
        failed_tries: p.failed_tries,
      }));
      const line = (r: (typeof rows)[number]) =>
        `${r.client_name} (${r.client_id})  redirect to ${r.redirect_host}  ${r.scope}  waiting ${duration(r.age_seconds)}, expires in ${duration(r.expires_in_seconds)}${r.approved ? '  approved: waiting for Continue' : ''}${r.failed_tries ? `  ${r.failed_tries} wrong passphrase(s)` : ''}`;
      out(json, { ok: true, pending: rows }, rows.length === 0 ? 'No pending requests.' : `${rows.map(line).join('\n')}\nApprove one with: hermes-mcp-auth approve CODE (the code its consent page shows)`);
    } else if (command === 'clients') {
      const clients = db ? listClients(db) : [];
      out(json, { ok: true, clients }, clients.length === 0 ? 'No registered clients.' : clients.map((c) => `${c.client_id}  ${c.client_name}  ${c.redirect_uris.join(' ')}  grants: ${c.active_grants}`).join('\n'));
    } else {
      const tokens = (db ? listStaticTokens(db) : []).map((t) => ({ ...t, created_at: new Date(t.created_at).toISOString() }));
      out(json, { ok: true, tokens }, tokens.length === 0 ? 'No static tokens.' : tokens.map((t) => `${t.name}  ${t.scope}  created ${t.created_at}`).join('\n'));
    }
    return EXIT.ok;
  } catch (e) {
    return fail(json, EXIT.failed, 'database', `${path}: ${(e as Error).message}`);
  } finally {
    db?.close();
  }
}

interface RunContext {
  json: boolean;
  readOnly: boolean;
  yes: boolean;
  scope: string | undefined;
  db: AuthDatabase;
  record: (path: string, outcome: string, facts?: { client?: string; scope?: string }) => void;
  maxTries: number;
  usage: UsageOf;
}

function run(command: string, args: string[], x: RunContext): number {
  const { json, db } = x;
  switch (command) {
    case 'approve': {
      const code = args[0];
      if (!code || args.length > 1) return fail(json, EXIT.usage, 'usage', x.usage('approve'));
      const options = { readOnly: x.readOnly, maxTries: x.maxTries, now: Date.now() };
      const found = lookupByCode(db, code, options);
      // The operator sees what a code would approve before approving it: a code read off someone
      // else's page (or typed wrong) must not approve a stranger's client unseen.
      if (found.ok && !x.yes) {
        const f = found.approval;
        const shown = { client_id: f.client_id, client_name: f.client_name, redirect_uri: f.redirect_uri, scope: found.scope };
        const summary = `${f.client_name} (${f.client_id})\n  redirect URI: ${f.redirect_uri}\n  scope: ${found.scope}`;
        const interactive = !json && process.stdin.isTTY === true;
        if (interactive) process.stdout.write(`Authorization request from ${summary}\nApprove it? [y/N] `);
        if (!interactive || !/^y(es)?$/i.test(readLine().trim())) {
          x.record('approve', 'approve_not_confirmed', { client: f.client_id });
          const message = interactive ? 'not approved' : 'not approved: check the request above, then run again with --yes to approve it';
          if (json) process.stdout.write(JSON.stringify({ ok: false, error: 'not_confirmed', message, ...shown }) + '\n');
          else process.stdout.write(`${interactive ? '' : `Authorization request from ${summary}\n`}Not approved${interactive ? '.' : ': check it, then run again with --yes to approve it.'}\n`);
          return EXIT.refused;
        }
      }
      const result = found.ok ? approveByCode(db, code, options) : found;
      if (!result.ok) {
        // A wrong code is recorded (never the code itself): guessing leaves a trail.
        x.record('approve', `approve_${result.reason}`);
        const message = { unknown_code: 'no pending request has this code (check it on the consent page)', expired: 'this request expired; start again from the client', locked: 'this request is locked after too many wrong passphrases', already_approved: 'this request is already approved', closed: 'this request has already ended (denied, locked or finished)' }[result.reason];
        return fail(json, result.reason === 'unknown_code' ? EXIT.notFound : EXIT.refused, result.reason, message);
      }
      const a = result.approval;
      x.record('approve', 'approved', { client: a.client_id, scope: result.scope });
      out(json, { ok: true, client_id: a.client_id, client_name: a.client_name, redirect_uri: a.redirect_uri, scope: result.scope }, `Approved ${a.client_name} (${a.client_id})\n  redirect URI: ${a.redirect_uri}\n  scope: ${result.scope}\nThe person on the consent page can now press Continue.`);
      return EXIT.ok;
    }
    case 'revoke': {
      const target = args[0];
      if (!target || args.length > 1) return fail(json, EXIT.usage, 'usage', x.usage('revoke'));
      const kind = revokeClient(db, target) ? 'client' : revokeStaticToken(db, target) ? 'static_token' : revokeOAuthToken(db, target) ? 'oauth_token' : undefined;
      if (!kind) {
        x.record('revoke', 'revoke_not_found');
        return fail(json, EXIT.notFound, 'not_found', 'no client id, static token name or OAuth token matches');
      }
      // Only a client id or a token name is recorded, never a token.
      x.record('revoke', `revoked_${kind}`, kind === 'oauth_token' ? {} : { client: target });
      out(json, { ok: true, revoked: kind }, `Revoked (${kind.replace('_', ' ')}).`);
      return EXIT.ok;
    }
    case 'token': {
      const [action, name, ...extra] = args;
      if ((action !== 'create' && action !== 'rotate') || !name || extra.length > 0) return fail(json, EXIT.usage, 'usage', x.usage('token'));
      const scopeText = x.scope;
      if (scopeText !== undefined && scopeText !== 'read' && scopeText !== 'full') return fail(json, EXIT.usage, 'usage', `--scope must be read or full, got ${JSON.stringify(scopeText)}`);
      let issued: { token: string; scope: string };
      try {
        // Without --scope a new token is full and a rotated one keeps its scope.
        issued = issueStaticToken(db, name, scopeText === undefined ? undefined : scopeText === 'read' ? SCOPE_READ : SCOPE_FULL, { rotate: action === 'rotate' });
      } catch (e) {
        return fail(json, EXIT.refused, 'refused', (e as Error).message);
      }
      const { token, scope } = issued;
      x.record(`token ${action}`, 'ok', { client: name, scope });
      out(json, { ok: true, name, scope, token }, `${token}\n\nThe token ${name} (${scope === SCOPE_READ ? 'read' : 'full'}) is shown this once. Clients send it as: Authorization: Bearer <token>`);
      return EXIT.ok;
    }
  }
  return fail(json, EXIT.usage, 'usage', x.usage('main'));
}

