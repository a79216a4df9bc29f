import assert from 'node:assert/strict';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AuditLog } from '../../../supervisor/http/edge/audit.js';
import { bearerMatches, bearerToken, tokenDigest } from '../../../supervisor/http/edge/bearer.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('bearer: only the exact token matches; scheme case-insensitive; other schemes and junk refused', () => {
  const digest = tokenDigest('a'.repeat(64));
  assert.equal(bearerMatches(`Bearer ${'a'.repeat(64)}`, digest), true);
  assert.equal(bearerMatches(`bearer ${'a'.repeat(64)}`, digest), true);
  assert.equal(bearerMatches(`Bearer ${'a'.repeat(63)}`, digest), false);
  assert.equal(bearerMatches(`Basic ${'a'.repeat(64)}`, digest), false);
  assert.equal(bearerMatches(`Bearer ${'a'.repeat(64)} x`, digest), false);
  assert.equal(bearerMatches(undefined, digest), false);
  assert.equal(bearerToken('Bearer '), undefined);
});

test('audit: 0600, one JSON line per entry, rotated to .1 at the size cap', () => {
  const file = join(temp.make('hmcp-audit-'), 'logs', 'audit.jsonl');
  const log = new AuditLog(file, 300);
  const entry = { ts: new Date().toISOString(), ip: '127.0.0.1', method: 'POST', path: '/mcp', status: 200, duration_ms: 1 };
  for (let i = 0; i < 4; i++) log.write({ ...entry, duration_ms: i });
  log.close();
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(existsSync(`${file}.1`), 'rotated');
  const all = [...readFileSync(`${file}.1`, 'utf8').trim().split('\n'), ...readFileSync(file, 'utf8').trim().split('\n')];
  assert.deepEqual(all.map((l) => (JSON.parse(l) as { duration_ms: number }).duration_ms), [0, 1, 2, 3]);
  assert.ok(statSync(file).size <= 300 && statSync(`${file}.1`).size <= 300);
});
