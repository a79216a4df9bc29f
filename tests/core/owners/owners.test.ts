import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CapabilityStore, OwnerRegistry } from '../../../supervisor/core/owners/owners.js';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';

// An owner's working directory lives in the owner registry: the terminal records where each
// command ended, the file tools read it through cwdFor, and it is forgotten when the owner ends,
// only once the owner's running work has settled.

test("cwdFor: the default until the owner's terminal records one, then that one, per owner", () => {
  const owners = new OwnerRegistry({ defaultCwd: '/srv/project' });
  const { cwdFor } = owners; // handed to the file tools as a plain function
  assert.equal(cwdFor('cap:a'), '/srv/project');
  owners.setCwd('cap:a', '/srv/project/sub');
  assert.equal(cwdFor('cap:a'), '/srv/project/sub');
  assert.equal(cwdFor('cap:b'), '/srv/project');
  assert.equal(cwdFor(''), '/srv/project', 'an owner-less call');
});

test('release forgets the cwd after the owner drains, before its release hooks run', async () => {
  const owners = new OwnerRegistry({ defaultCwd: '/srv/project' });
  owners.setCwd('cap:a', '/tmp');
  let seenByHook: string | undefined;
  owners.registerReleaseHook('terminal', (id) => {
    seenByHook = owners.cwdFor(id);
  });
  let finish!: () => void;
  const running = owners.runLeased('cap:a', () => new Promise<void>((resolve) => (finish = resolve)));
  const released = owners.release('cap:a');
  await new Promise((r) => setImmediate(r));
  assert.equal(owners.cwdFor('cap:a'), '/tmp', 'still running: kept');
  finish();
  await running;
  await released;
  assert.equal(seenByHook, '/srv/project');
  assert.equal(owners.cwdFor('cap:a'), '/srv/project');
});

test('leases count per owner and in total until the work settles, rejected work too', async () => {
  const owners = new OwnerRegistry({ defaultCwd: '/' });
  const gates: Array<() => void> = [];
  const hold = () => new Promise<void>((resolve) => gates.push(resolve));
  const a1 = owners.runLeased('cap:a', hold);
  const a2 = owners.runLeased('cap:a', hold);
  const b = owners.runLeased('cap:b', () => Promise.reject(new Error('boom')));
  assert.equal(owners.leaseCount('cap:a'), 2);
  assert.equal(owners.inflightNativeCalls, 3);
  await assert.rejects(b, /boom/);
  assert.equal(owners.leaseCount('cap:b'), 0);
  assert.equal(owners.inflightNativeCalls, 2);
  gates.shift()!();
  await a1;
  assert.equal(owners.leaseCount('cap:a'), 1);
  gates.shift()!();
  await a2;
  assert.equal(owners.leaseCount('cap:a'), 0);
  assert.equal(owners.inflightNativeCalls, 0);
  assert.equal(await owners.runLeased('cap:c', async () => 42), 42);
});

test('release waits for the last lease, runs every hook in order, and reports a throwing hook without stopping the rest', async () => {
  const errors: string[] = [];
  const owners = new OwnerRegistry({ defaultCwd: '/', onHookError: (name, id, error) => errors.push(`${name}:${id}:${(error as Error).message}`) });
  const ran: string[] = [];
  owners.registerReleaseHook('one', (id) => void ran.push(`one:${id}`));
  owners.registerReleaseHook('bad', async () => {
    throw new Error('nope');
  });
  owners.registerReleaseHook('two', async (id) => void ran.push(`two:${id}`));
  let finish!: () => void;
  const first = owners.runLeased('cap:a', () => new Promise<void>((resolve) => (finish = resolve)));
  const second = owners.runLeased('cap:a', () => Promise.resolve());
  await second;
  const released = owners.release('cap:a');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ran, [], 'one lease still held');
  finish();
  await first;
  await released;
  assert.deepEqual(ran, ['one:cap:a', 'two:cap:a']);
  assert.deepEqual(errors, ['bad:cap:a:nope']);
  await owners.release('cap:idle');
  assert.deepEqual(ran.slice(2), ['one:cap:idle', 'two:cap:idle'], 'an owner without leases is released at once');
});

// Capability tokens: opened with a fixed expiry, resolved to their record or refused with the
// stable code saying why, bounded in number, swept once when they expire.

function store(options: { ttlMs?: number; maxActive?: number } = {}): { caps: CapabilityStore; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { caps: new CapabilityStore({ ttlMs: options.ttlMs ?? 60_000, maxActive: options.maxActive ?? 10, now: () => t }), advance: (ms) => (t += ms) };
}

const refusedWith = (code: string, message?: RegExp) => (e: unknown) => e instanceof GatewayError && e.code === code && (message === undefined || message.test(e.message));

test('open: an hmcp_ token of 192 random bits, an id that is not derived from it, a fixed expiry', () => {
  const { caps, advance } = store();
  const opened = caps.open();
  assert.match(opened.token, /^hmcp_[A-Za-z0-9_-]{32}$/);
  assert.match(opened.id, /^[A-Za-z0-9_-]{12}$/);
  assert.ok(!opened.token.includes(opened.id));
  assert.equal(opened.expiresAt, 1_060_000);
  advance(30_000);
  const record = caps.resolve(opened.token);
  assert.equal(record.id, opened.id);
  assert.equal(record.expiresAt, 1_060_000, 'use never extends it');
  assert.equal(record.createdAt, 1_000_000);
  assert.notEqual(caps.open().token, opened.token);
});

test('open hands out a token that output redaction leaves as it is: a draw it would alter is drawn again', () => {
  const draws = ['IgD09oOnTbQpeyJzYM1EqOmCbxGlxLuf', 'q7Ahb0mC3xv_TtZr1Lk9Wd2Pn4Yc6Qa8'];
  assert.notEqual(redact(`hmcp_${draws[0]}`), `hmcp_${draws[0]}`, 'redaction masks the first draw as a JWT');
  const caps = new CapabilityStore({ ttlMs: 1_000, maxActive: 10, now: () => 0, random: () => Buffer.from(draws.shift()!, 'base64url') });
  const opened = caps.open();
  assert.equal(opened.token, 'hmcp_q7Ahb0mC3xv_TtZr1Lk9Wd2Pn4Yc6Qa8');
  assert.equal(caps.resolve(opened.token).id, opened.id);
});

test('resolve refuses an unknown token, a closed one, an expired one (naming the lifetime), and one bound to another session', () => {
  const { caps, advance } = store({ ttlMs: 5_000 });
  assert.throws(() => caps.resolve('hmcp_nope'), refusedWith(ErrorCode.SESSION_TOKEN_INVALID, /not a token this gateway issued/));
  const closed = caps.open();
  assert.equal(caps.revokeById(closed.id), true);
  assert.equal(caps.revokeById(closed.id), false, 'already revoked');
  assert.equal(caps.revokeById('unknown'), false);
  assert.throws(() => caps.resolve(closed.token), refusedWith(ErrorCode.SESSION_TOKEN_REVOKED, /closed with session_close/));
  const bound = caps.open('legacy-1');
  assert.equal(caps.resolve(bound.token, 'legacy-1').boundSession, 'legacy-1');
  assert.throws(() => caps.resolve(bound.token, 'legacy-2'), refusedWith(ErrorCode.SESSION_TOKEN_FOREIGN, /opened inside another MCP session/));
  assert.throws(() => caps.resolve(bound.token), refusedWith(ErrorCode.SESSION_TOKEN_FOREIGN));
  const free = caps.open();
  assert.equal(caps.resolve(free.token, 'any-session').id, free.id, 'a sessionless token works on every request');
  advance(5_000);
  assert.throws(() => caps.resolve(free.token), refusedWith(ErrorCode.SESSION_TOKEN_EXPIRED, /^session_token expired \(tokens live 5 seconds from session_open\); open a new one$/));
});

test("a token opened by one credential is foreign to every other, before anything about its state is said", () => {
  const { caps } = store();
  const mine = caps.open(undefined, 'oauth:client-a');
  assert.equal(caps.resolve(mine.token, undefined, 'oauth:client-a').principal, 'oauth:client-a');
  assert.throws(() => caps.resolve(mine.token, undefined, 'static:ci'), refusedWith(ErrorCode.SESSION_TOKEN_FOREIGN, /opened with another credential/));
  assert.throws(() => caps.resolve(mine.token), refusedWith(ErrorCode.SESSION_TOKEN_FOREIGN));
  caps.revokeById(mine.id);
  assert.throws(() => caps.resolve(mine.token, undefined, 'static:ci'), refusedWith(ErrorCode.SESSION_TOKEN_FOREIGN), 'not REVOKED: nothing learnt');
  const anyone = caps.open();
  assert.equal(caps.resolve(anyone.token, undefined, 'static:ci').id, anyone.id, 'opened without authentication: no principal to match');
});

test('at most maxActive live tokens; a closed or expired one frees its place', () => {
  const { caps, advance } = store({ ttlMs: 1_000, maxActive: 2 });
  const a = caps.open();
  caps.open();
  assert.equal(caps.activeCount(), 2);
  assert.throws(() => caps.open(), refusedWith(ErrorCode.SESSION_LIMIT_REACHED, /^at most 2 capability sessions may be open at once;/));
  caps.revokeById(a.id);
  assert.equal(caps.activeCount(), 1);
  caps.open();
  advance(1_000);
  assert.equal(caps.activeCount(), 0);
  caps.open();
  caps.open();
  assert.equal(caps.activeCount(), 2);
});

test('sweepExpired hands each expired (not revoked) record over once', () => {
  const { caps, advance } = store({ ttlMs: 1_000 });
  const a = caps.open();
  advance(500);
  const b = caps.open();
  const c = caps.open();
  caps.revokeById(c.id);
  assert.deepEqual(caps.sweepExpired(), []);
  advance(500);
  assert.deepEqual(caps.sweepExpired().map((r) => r.id), [a.id]);
  assert.deepEqual(caps.sweepExpired(), [], 'once');
  advance(500);
  assert.deepEqual(caps.sweepExpired().map((r) => r.id), [b.id]);
  assert.throws(() => caps.resolve(a.token), refusedWith(ErrorCode.SESSION_TOKEN_EXPIRED), 'a swept token still says why');
});
