import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { approveByCode, pendingByUid } from '../../../supervisor/http/auth/approvals.js';
import { openAuthDatabase } from '../../../supervisor/http/auth/auth-db.js';
import type { Provider } from '../../../supervisor/http/auth/authorization-server.js';
import { ConsentPages, passphraseFileProblem } from '../../../supervisor/http/auth/consent.js';
import { PassphraseLimit } from '../../../supervisor/http/auth/passphrase-limit.js';
import { tempDirs } from '../../helpers/temp.js';

// The consent page on a loopback server, with a stand-in for the parts of oidc-provider it calls
// (the interaction, the client, the grant, the finish): the page, CSRF, the operator's code and
// passphrase, the locks and the narrowed grant. With the real authorization server behind a whole
// gateway: consent-gateway.test.ts.

const dirs = tempDirs();
const servers: Server[] = [];
after(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  dirs.removeAll();
});

interface Finished {
  result: Record<string, unknown>;
}
interface GrantRecord {
  clientId: string;
  oidc: string[];
  resource: Array<[string, string]>;
  rejected: string[];
}

/** What oidc-provider does for the consent page, recorded. */
function standIn(uid: string, params: Record<string, unknown>, expMs: number): { provider: Provider; finished: Finished[]; grants: GrantRecord[] } {
  const finished: Finished[] = [];
  const grants: GrantRecord[] = [];
  class Grant {
    readonly record: GrantRecord;
    constructor(o: { accountId: string; clientId: string }) {
      this.record = { clientId: o.clientId, oidc: [], resource: [], rejected: [] };
    }
    addOIDCScope(s: string): void {
      this.record.oidc.push(s);
    }
    addResourceScope(r: string, s: string): void {
      this.record.resource.push([r, s]);
    }
    rejectOIDCScope(s: string): void {
      this.record.rejected.push(`oidc:${s}`);
    }
    rejectResourceScope(r: string, s: string): void {
      this.record.rejected.push(`${r}:${s}`);
    }
    async save(): Promise<string> {
      grants.push(this.record);
      return `grant-${grants.length}`;
    }
  }
  const provider = {
    interactionDetails: async () => ({ uid, params, exp: Math.floor(expMs / 1000) }),
    Client: { find: async (id: string) => (id === 'known' ? { clientName: 'Editor <b>' } : undefined) },
    Grant,
    interactionFinished: async (_req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>) => {
      finished.push({ result });
      res.writeHead(303, { location: '/callback' });
      res.end();
    },
  };
  return { provider: provider as unknown as Provider, finished, grants };
}

async function consent(options: { params?: Record<string, unknown>; passphrase?: string; maxTries?: number; ttlSeconds?: number; uid?: string } = {}) {
  const dir = dirs.make('consent-');
  const db = openAuthDatabase(join(dir, 'auth.sqlite3'));
  let now = 1_700_000_000_000;
  const uid = options.uid ?? 'uid-1';
  const fake = standIn(uid, options.params ?? { client_id: 'known', scope: 'hermes:full offline_access', redirect_uri: 'https://app.example/cb', resource: 'https://gw.example/mcp' }, now + 3_600_000);
  let passphraseFile: string | undefined;
  if (options.passphrase !== undefined) {
    passphraseFile = join(dir, 'passphrase');
    writeFileSync(passphraseFile, `${options.passphrase}\n`, { mode: 0o600 });
  }
  const audit: string[] = [];
  const pages = new ConsentPages({
    provider: fake.provider,
    db,
    maxTries: options.maxTries ?? 3,
    ttlSeconds: options.ttlSeconds ?? 600,
    authCommand: { command: 'hermes-mcp-auth', inCheckout: false },
    ...(passphraseFile ? { passphraseFile } : {}),
    passphraseLimit: new PassphraseLimit({ maxFailures: 100, windowMs: 60_000, lockoutMs: 60_000, now: () => now }),
    defaultResource: 'https://gw.example/mcp',
    now: () => now,
    audit: (f) => audit.push(`${f.ip} ${f.client} ${f.outcome}${f.scope ? ` ${f.scope}` : ''}`),
  });
  const server = createServer((req, res) => void pages.handle(req.url!.slice(1), req, res, '198.51.100.4'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path = `/${uid}`) => {
    const res = await fetch(base + path, { redirect: 'manual' });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const post = async (form: Record<string, string>, path = `/${uid}`) => {
    const res = await fetch(base + path, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    return { status: res.status, html: await res.text() };
  };
  const codeAndCsrf = (html: string) => ({ code: /id="approval-code">([^<]+)</.exec(html)![1]!, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! });
  return { db, uid, fake, audit, get, post, codeAndCsrf, passphraseFile, advance: (ms: number) => (now += ms), now: () => now };
}

test('passphraseFileProblem: only the gateway user own 0600 regular file', () => {
  const dir = dirs.make('passphrase-');
  const file = join(dir, 'p');
  assert.equal(passphraseFileProblem(join(dir, 'absent')), 'cannot be read (ENOENT)');
  assert.equal(passphraseFileProblem(dir), 'is not a regular file');
  writeFileSync(file, 'x', { mode: 0o600 });
  assert.equal(passphraseFileProblem(file), undefined);
  chmodSync(file, 0o640);
  assert.equal(passphraseFileProblem(file), 'has mode 640');
  chmodSync(file, 0o400);
  assert.equal(passphraseFileProblem(file), undefined, 'stricter is fine');
});

test('the page: client (escaped), redirect URI, scope, the command with the code; no script, never framed; one pending row, audited', async () => {
  const c = await consent();
  const page = await c.get();
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'.*frame-ancestors 'none'/);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  assert.ok(page.html.includes('Editor &#60;b&#62; <small>(known)</small>'));
  assert.ok(page.html.includes('<code>https://app.example/cb</code>'));
  assert.ok(page.html.includes('<code>hermes:full</code>'));
  assert.ok(!page.html.includes('<script'));
  assert.ok(!page.html.includes('name="passphrase"'), 'no passphrase file: no passphrase field');
  assert.match(page.html, /within 10 min/);
  const { code } = c.codeAndCsrf(page.html);
  assert.ok(page.html.includes(`hermes-mcp-auth approve <strong id="approval-code">${code}</strong>`));
  const row = pendingByUid(c.db, c.uid)!;
  assert.deepEqual({ client: row.client_id, name: row.client_name, scope: row.scope, resource: row.resource, expires: row.expires_at }, { client: 'known', name: 'Editor <b>', scope: 'hermes:full', resource: 'https://gw.example/mcp', expires: c.now() + 600_000 });
  assert.deepEqual(c.audit, ['198.51.100.4 known approval_pending hermes:full']);
  assert.equal(c.codeAndCsrf((await c.get()).html).code, code, 'the same code on reload');
});

test('a mismatched uid is refused; a POST without the CSRF token approves nothing', async () => {
  const c = await consent();
  const other = await c.get('/uid-2');
  assert.equal(other.status, 400);
  assert.match(other.html, /Mismatched authorization request/);
  await c.get();
  const forged = await c.post({ action: 'continue', csrf: 'guess' });
  assert.equal(forged.status, 403);
  assert.match(forged.html, /This form has expired/);
  assert.deepEqual(c.fake.finished, []);
  assert.ok(c.audit.includes('198.51.100.4 known csrf_invalid'));
});

test('Continue before the operator approves waits; after a read-only approval by code, the grant is narrowed and offline_access kept', async () => {
  const c = await consent();
  const { code, csrf } = c.codeAndCsrf((await c.get()).html);
  const early = await c.post({ action: 'continue', csrf });
  assert.equal(early.status, 200);
  assert.match(early.html, /Not approved yet/);
  const approved = approveByCode(c.db, code, { readOnly: true, maxTries: 3, now: c.now() });
  assert.equal(approved.ok, true);
  const done = await c.post({ action: 'continue', csrf });
  assert.equal(done.status, 303);
  assert.deepEqual(c.fake.grants, [{ clientId: 'known', oidc: ['hermes:read offline_access'], resource: [['https://gw.example/mcp', 'hermes:read']], rejected: ['oidc:hermes:full', 'https://gw.example/mcp:hermes:full'] }]);
  assert.deepEqual(c.fake.finished, [{ result: { login: { accountId: 'operator' }, consent: { grantId: 'grant-1' } } }]);
  assert.equal(pendingByUid(c.db, c.uid)!.closed, 'granted');
  const again = await c.get();
  assert.equal(again.status, 400);
  assert.match(again.html, /already finished/);
  assert.ok(c.audit.includes('198.51.100.4 known granted hermes:read'));
});

test('the passphrase approves; wrong ones count down and lock the request as access_denied', async () => {
  const c = await consent({ passphrase: 'correct horse', maxTries: 2 });
  const { csrf } = c.codeAndCsrf((await c.get()).html);
  const wrong = await c.post({ action: 'continue', csrf, passphrase: 'nope' });
  assert.match(wrong.html, /Wrong passphrase \(1 tries left\)\./);
  const locked = await c.post({ action: 'continue', csrf, passphrase: 'still no' });
  assert.equal(locked.status, 303);
  assert.deepEqual(c.fake.finished.map((f) => f.result), [{ error: 'access_denied', error_description: 'too many wrong passphrases' }]);
  assert.equal(pendingByUid(c.db, c.uid)!.closed, 'locked');

  const d = await consent({ passphrase: 'correct horse' });
  const page = await d.get();
  assert.ok(page.html.includes('name="passphrase"'));
  const ok = await d.post({ action: 'continue', csrf: d.codeAndCsrf(page.html).csrf, passphrase: 'correct horse' });
  assert.equal(ok.status, 303);
  assert.deepEqual(d.fake.grants[0]!.oidc, ['hermes:full offline_access']);
  assert.deepEqual(d.fake.grants[0]!.rejected, []);
  assert.ok(d.audit.includes('198.51.100.4 known approved_by_passphrase hermes:full'));
});

test('a passphrase file made readable by others approves nothing', async () => {
  const c = await consent({ passphrase: 'pw' });
  const { csrf } = c.codeAndCsrf((await c.get()).html);
  chmodSync(c.passphraseFile!, 0o644);
  const res = await c.post({ action: 'continue', csrf, passphrase: 'pw' });
  assert.match(res.html, /Wrong passphrase/);
  assert.deepEqual(c.fake.grants, []);
});

test('Deny refuses; an expired request is access_denied; no scope asked is the full scope, no resource the default one', async () => {
  const c = await consent();
  const { csrf } = c.codeAndCsrf((await c.get()).html);
  await c.post({ action: 'deny', csrf });
  assert.deepEqual(c.fake.finished.map((f) => f.result.error_description), ['the request was denied']);
  assert.equal(pendingByUid(c.db, c.uid)!.closed, 'denied');

  const e = await consent({ params: { client_id: 'unknown-client', redirect_uri: 'https://x/cb' }, ttlSeconds: 60 });
  const page = await e.get();
  assert.ok(page.html.includes('(unnamed client)'));
  const row = pendingByUid(e.db, e.uid)!;
  assert.equal(row.scope, 'hermes:full');
  assert.equal(row.resource, 'https://gw.example/mcp');
  e.advance(60_000);
  const expired = await e.get();
  assert.equal(expired.status, 303);
  assert.deepEqual(e.fake.finished.map((f) => f.result.error_description), ['the operator approval expired']);
});
