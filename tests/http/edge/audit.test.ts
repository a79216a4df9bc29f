import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Hono } from 'hono';
import { AuditLog, auditFacts, auditRequests, type AuditEntry } from '../../../supervisor/http/edge/audit.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

const lines = (file: string): Record<string, unknown>[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

test('audit: 0600, one JSON line per entry, rotated to .1 at the size cap', () => {
  const file = join(temp.make('hmcp-audit-'), 'logs', 'audit.jsonl');
  const log = new AuditLog(file, 300);
  const entry = { ts: new Date().toISOString(), ip: '127.0.0.1', method: 'POST', path: '/mcp', status: 200, duration_ms: 1 };
  for (let i = 0; i < 4; i++) log.write({ ...entry, duration_ms: i });
  log.close();
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700, 'the directory it made is private');
  assert.ok(existsSync(`${file}.1`), 'rotated');
  const all = [...lines(`${file}.1`), ...lines(file)];
  assert.deepEqual(all.map((l) => l.duration_ms), [0, 1, 2, 3]);
  assert.ok(statSync(file).size <= 300 && statSync(`${file}.1`).size <= 300);
});

test('an existing file is appended to (its size counts toward the cap) and made 0600', () => {
  const dir = temp.make('hmcp-audit-');
  const file = join(dir, 'audit.jsonl');
  writeFileSync(file, '{"old":true}\n');
  chmodSync(file, 0o644);
  const log = new AuditLog(file, 1_000_000);
  log.write({ ts: 't', ip: '::1', method: 'GET', path: '/health', status: 200, duration_ms: 0 });
  log.close();
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(lines(file), [{ old: true }, { ts: 't', ip: '::1', method: 'GET', path: '/health', status: 200, duration_ms: 0 }]);
});

test('a write that fails is reported to the owner and never thrown', () => {
  const dir = temp.make('hmcp-audit-');
  mkdirSync(join(dir, 'is-a-directory'));
  const errors: string[] = [];
  const log = new AuditLog(join(dir, 'is-a-directory'), 1000, (error) => errors.push((error as NodeJS.ErrnoException).code ?? String(error)));
  log.write({ ts: 't', ip: 'x', method: 'GET', path: '/', status: 200, duration_ms: 0 });
  assert.deepEqual(errors, ['EISDIR']);
});

test('the middleware writes one line per request after the answer: address, method, path without query, status and the facts the handler reported', async () => {
  const file = join(temp.make('hmcp-audit-'), 'audit.jsonl');
  const log = new AuditLog(file, 1_000_000);
  const app = new Hono();
  app.use('*', auditRequests(log, () => '203.0.113.9'));
  app.post('/mcp', (c) => {
    const facts = auditFacts(c.req.raw);
    facts.rpc_method = 'tools/call';
    facts.tool = 'terminal';
    assert.equal(auditFacts(c.req.raw), facts, 'one facts object per request');
    return c.json({ ok: true }, 202);
  });
  app.get('/boom', () => {
    throw new Error('boom');
  });
  assert.equal((await app.request('/mcp?token=secret', { method: 'POST', headers: { authorization: 'Bearer secret' }, body: 'secret body' })).status, 202);
  assert.equal((await app.request('/boom')).status, 500);
  log.close();
  const [call, boom] = lines(file) as unknown as AuditEntry[];
  assert.deepEqual({ ...call, ts: 'T', duration_ms: 0 }, { ts: 'T', ip: '203.0.113.9', method: 'POST', path: '/mcp', status: 202, duration_ms: 0, rpc_method: 'tools/call', tool: 'terminal' });
  assert.ok(!Number.isNaN(Date.parse(call!.ts)));
  assert.equal(boom!.status, 500);
  assert.equal(boom!.path, '/boom');
  assert.ok(!readFileSync(file, 'utf8').includes('secret'));
});
