import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthDatabase } from './auth-db.js';
import { close, countFailedTry, markApproved, newApprovalCode, pendingByUid, recordPending, reissueCode, type ClosedOutcome, type PendingApproval } from './approvals.js';
import { escapeHtml, type Provider } from './authorization-server.js';
import type { OperatorCommand } from '../../platform/operator-command.js';
import type { PassphraseLimit } from './passphrase-limit.js';
import { parseScopes, SCOPE_FULL } from '../../core/scopes.js';

// The consent page of the authorization server (GET/POST /oauth/consent/:uid). It shows the
// client's name, its redirect URI and the requested scope, and waits for an operator approval that
// nobody on the internet can give themselves: a one-time code shown here and approved on the host
// with `hermes-mcp-auth approve CODE` (the command as it runs on this host: operator-command.ts),
// or the passphrase kept in a 0600 file. Plain HTML, no
// external assets, no script; the form carries a per-request CSRF token, and oidc-provider's
// interaction cookie binds the page to the browser that started the request.

export interface ConsentOptions {
  provider: Provider;
  db: AuthDatabase;
  maxTries: number;
  ttlSeconds: number;
  /** How the operator runs hermes-mcp-auth on this host (its name on PATH, or the checkout's npm script). */
  authCommand: OperatorCommand;
  /** HERMES_MCP_AUTH_PASSPHRASE_FILE, read on each try (so a changed passphrase applies at once). */
  passphraseFile?: string;
  /** Wrong passphrases counted across every request. */
  passphraseLimit: PassphraseLimit;
  /** The resource a request that names none is granted (the first public URL's /mcp, as oidc-provider defaults it). */
  defaultResource: string;
  now: () => number;
  /** One audit line per decision, with the caller's address. */
  audit: (facts: { ip: string; client: string; outcome: string; scope?: string }) => void;
}

const MAX_FORM_BYTES = 4096;

type Say = (facts: { client: string; outcome: string; scope?: string }) => void;

/**
 * Why the passphrase file must not be used, or undefined when it is the gateway user's own 0600 (or
 * stricter) file. A passphrase others can read approves any client; one another user owns can be
 * changed by them.
 */
export function passphraseFileProblem(path: string): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    return `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  if (!st.isFile()) return 'is not a regular file';
  if (st.mode & 0o077) return `has mode ${(st.mode & 0o777).toString(8)}`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `belongs to uid ${st.uid}, not the gateway's (${uid})`;
  return undefined;
}

export class ConsentPages {
  /** The code and CSRF token of each pending request, in memory only (the database has the code's hash). */
  private readonly secrets = new Map<string, { code: string; csrf: string }>();

  constructor(private readonly o: ConsentOptions) {}

  /** `ip`: the caller's address (the forwarder's X-Forwarded-For), for the audit lines. */
  async handle(uid: string, req: IncomingMessage, res: ServerResponse, ip: string): Promise<void> {
    const say: Say = (facts) => this.o.audit({ ip, ...facts });
    let details;
    try {
      details = await this.o.provider.interactionDetails(req, res);
    } catch {
      return page(res, 400, 'This authorization request is unknown or has expired', '<p>Start again from the application that sent you here.</p>');
    }
    if (details.uid !== uid) return page(res, 400, 'Mismatched authorization request', '<p>Start again from the application that sent you here.</p>');
    const pending = await this.ensurePending(uid, details.params, details.exp * 1000, say);
    // An ended request stays ended for as long as its interaction lives, whatever is posted to it.
    if (pending.closed === 'granted') return page(res, 400, 'This authorization request is already finished', '<p>Start again from the application that sent you here.</p>');
    if (pending.closed !== null) return this.finish(req, res, pending, pending.closed, say);
    if (pending.expires_at <= this.o.now()) return this.finish(req, res, pending, 'expired', say);
    if (pending.failed_tries >= this.o.maxTries) return this.finish(req, res, pending, 'locked', say);
    if (req.method === 'GET') return this.render(res, pending);
    if (req.method !== 'POST') return page(res, 405, 'Method not allowed', '');

    const form = await readForm(req);
    const secrets = this.secrets.get(uid);
    if (!form || !secrets || !sameText(form.get('csrf') ?? '', secrets.csrf)) {
      say({ client: pending.client_id, outcome: 'csrf_invalid' });
      return page(res, 403, 'This form has expired', '<p>Reload the page and try again.</p>');
    }
    if (form.get('action') === 'deny') return this.finish(req, res, pending, 'denied', say);
    const passphrase = form.get('passphrase') ?? '';
    if (passphrase !== '') {
      const disabledMs = this.o.passphraseLimit.disabledFor();
      if (disabledMs > 0) {
        say({ client: pending.client_id, outcome: 'passphrase_disabled' });
        return this.render(res, pending, `Passphrase approval is disabled for ${Math.ceil(disabledMs / 60_000)} min after too many wrong passphrases; ask the operator to run the command below.`);
      }
      if (this.passphraseMatches(passphrase)) {
        markApproved(this.o.db, uid, pending.scope);
        say({ client: pending.client_id, outcome: 'approved_by_passphrase', scope: pending.scope });
      } else {
        const tries = countFailedTry(this.o.db, uid);
        say({ client: pending.client_id, outcome: 'passphrase_wrong' });
        if (this.o.passphraseLimit.fail()) say({ client: pending.client_id, outcome: 'passphrase_approval_disabled' });
        if (tries >= this.o.maxTries) return this.finish(req, res, pending, 'locked', say);
        return this.render(res, { ...pending, failed_tries: tries }, `Wrong passphrase (${this.o.maxTries - tries} tries left).`);
      }
    }
    const current = pendingByUid(this.o.db, uid);
    if (!current?.approved_scope) return this.render(res, pending, 'Not approved yet. Ask the operator to run the command below, then press Continue.');
    // The MCP SDK client asks for offline_access (a refresh token) whenever the server offers it.
    const offline = String(details.params.scope ?? '').split(' ').includes('offline_access');
    return this.grant(req, res, current, current.approved_scope, offline, say);
  }

  private async ensurePending(uid: string, params: Record<string, unknown>, expiresAt: number, say: Say): Promise<PendingApproval> {
    const existing = pendingByUid(this.o.db, uid);
    if (existing && (this.secrets.has(uid) || existing.closed !== null)) return existing;
    if (existing) {
      // A restarted gateway lost the code it showed: the same request gets a new one, with its tries so far.
      const code = newApprovalCode();
      reissueCode(this.o.db, uid, code);
      this.secrets.set(uid, { code, csrf: randomBytes(24).toString('base64url') });
      return existing;
    }
    const clientId = String(params.client_id ?? '');
    const client = await this.o.provider.Client.find(clientId);
    const requested = parseScopes(typeof params.scope === 'string' ? params.scope : undefined);
    const code = newApprovalCode();
    const now = this.o.now();
    const p = {
      uid,
      client_id: clientId,
      client_name: client?.clientName ?? '(unnamed client)',
      redirect_uri: String(params.redirect_uri ?? ''),
      // No scope requested: the full scope, shown as such; the operator can narrow it (approve --read-only).
      scope: requested.length > 0 ? requested.join(' ') : SCOPE_FULL,
      // No resource named: the default one, which oidc-provider puts into the token (an empty one would grant nothing usable).
      resource: typeof params.resource === 'string' && params.resource !== '' ? params.resource : this.o.defaultResource,
      created_at: now,
      expires_at: Math.min(expiresAt, now + this.o.ttlSeconds * 1000),
    };
    recordPending(this.o.db, code, p);
    this.secrets.set(uid, { code, csrf: randomBytes(24).toString('base64url') });
    say({ client: clientId, outcome: 'approval_pending', scope: p.scope });
    return { ...p, failed_tries: 0, approved_scope: null, closed: null };
  }

  private passphraseMatches(given: string): boolean {
    // Checked at startup, and again on each use: a file made readable since approves nothing.
    if (!this.o.passphraseFile || passphraseFileProblem(this.o.passphraseFile)) return false;
    let expected: string;
    try {
      expected = readFileSync(this.o.passphraseFile, 'utf8').trim();
    } catch {
      return false;
    }
    if (expected === '') return false;
    return sameText(given, expected);
  }

  private async grant(req: IncomingMessage, res: ServerResponse, p: PendingApproval, scope: string, offline: boolean, say: Say): Promise<void> {
    const grant = new this.o.provider.Grant({ accountId: 'operator', clientId: p.client_id });
    // Our scopes are both advertised by the authorization server and the resource's scopes: oidc-provider
    // checks the first kind for consent and puts the second into the audience-bound token.
    grant.addOIDCScope(offline ? `${scope} offline_access` : scope);
    grant.addResourceScope(p.resource, scope);
    // What was asked for but not approved (approve --read-only) is rejected explicitly, so the
    // request completes with the narrower scope instead of asking for consent again.
    const narrowed = p.scope.split(' ').filter((s) => !scope.split(' ').includes(s));
    if (narrowed.length > 0) {
      grant.rejectOIDCScope(narrowed.join(' '));
      grant.rejectResourceScope(p.resource, narrowed.join(' '));
    }
    const grantId = await grant.save();
    this.end(p.uid, 'granted');
    say({ client: p.client_id, outcome: 'granted', scope });
    await this.o.provider.interactionFinished(req, res, { login: { accountId: 'operator' }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  private async finish(req: IncomingMessage, res: ServerResponse, p: PendingApproval, outcome: Exclude<ClosedOutcome, 'granted'>, say: Say): Promise<void> {
    if (p.closed === null) say({ client: p.client_id, outcome: `approval_${outcome}` });
    this.end(p.uid, outcome);
    const description = { expired: 'the operator approval expired', locked: 'too many wrong passphrases', denied: 'the request was denied' }[outcome];
    await this.o.provider.interactionFinished(req, res, { error: 'access_denied', error_description: description }, { mergeWithLastSubmission: false });
  }

  private end(uid: string, outcome: ClosedOutcome): void {
    this.secrets.delete(uid);
    close(this.o.db, uid, outcome);
  }

  private render(res: ServerResponse, p: PendingApproval, notice?: string): void {
    const s = this.secrets.get(p.uid)!;
    const minutes = Math.max(1, Math.round((p.expires_at - this.o.now()) / 60_000));
    const body = `
<p>An application asks to use this Hermes gateway:</p>
<table>
<tr><th>Client</th><td>${escapeHtml(p.client_name)} <small>(${escapeHtml(p.client_id)})</small></td></tr>
<tr><th>Redirect URI</th><td><code>${escapeHtml(p.redirect_uri)}</code></td></tr>
<tr><th>Scope</th><td><code>${escapeHtml(p.scope)}</code></td></tr>
</table>
<p>The gateway's operator must approve it on the host, within ${minutes} min:</p>
<pre>${escapeHtml(this.o.authCommand.command)} approve <strong id="approval-code">${escapeHtml(s.code)}</strong></pre>
${this.o.authCommand.inCheckout ? "<p><small>(in the gateway's checkout)</small></p>\n" : ''}${notice ? `<p class="notice">${escapeHtml(notice)}</p>` : ''}
<form method="post">
<input type="hidden" name="csrf" value="${escapeHtml(s.csrf)}">
${this.o.passphraseFile ? '<p><label>Or the operator passphrase: <input type="password" name="passphrase" autocomplete="off"></label></p>' : ''}
<button name="action" value="continue">Continue</button> <button name="action" value="deny">Deny</button>
</form>`;
    page(res, 200, 'Approve access to Hermes', body);
  }
}

function sameText(a: string, b: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // No script, no external anything, never framed (clickjacking). No referrer to the client, but
    // the form's own POST keeps its Origin: under `no-referrer` browsers send `Origin: null`.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em}th{text-align:left;padding-right:1em}pre{background:#eee;padding:.6em;font-size:1.2em}.notice{color:#a40}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`);
}
