import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { UnitConnectionServer } from '../../../../supervisor/tools/execute-code/units/unit-connections.js';
import { ForkedUnit } from '../../../../supervisor/tools/execute-code/units/forked-unit.js';
import { tempDirs } from '../../../helpers/temp.js';
import { waitFor, within } from '../../../helpers/wait.js';

// The socket zygote-forked execute_code units connect back on: a connection is handed to its unit
// only with the unit's id and one-time token, once per kind, and only while the unit is expected;
// everything else is closed at once, as is a connection that never says who it is.

const temp = tempDirs();
let server: UnitConnectionServer;
const PREAMBLE_TIMEOUT_MS = 300;
const CLOSE_WINDOW_MS = 800;
before(async () => {
  server = await UnitConnectionServer.listen(join(temp.make('hmcp-unitsock-'), 'units.sock'), PREAMBLE_TIMEOUT_MS);
});
after(async () => {
  await server.close();
  temp.removeAll();
});

function newUnit(): ForkedUnit {
  const id = randomBytes(8).toString('hex');
  const unit = new ForkedUnit(
    { forget: (unitId) => server.forget(unitId), killHolder: () => {}, unresponsive: () => {} },
    { id, token: randomBytes(32).toString('base64url'), maxFrameBytes: 1 << 20, reapGraceMs: 1000 },
  );
  server.expect(id, unit);
  return unit;
}

/**
 * Connects, sends `bytes`, and resolves with whether the gateway closed the connection within
 * CLOSE_WINDOW_MS (a refusal closes at once; the preamble timeout is well inside the window).
 */
async function closedByGateway(bytes: Buffer | string, keep?: (socket: Socket) => void): Promise<boolean> {
  const socket = connect(server.path);
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(bytes);
  keep?.(socket);
  const closed = await Promise.race([new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), CLOSE_WINDOW_MS))]);
  if (!closed) socket.destroy();
  return closed;
}

const preamble = (kind: string, unit: ForkedUnit, token = unit.token) => `${kind}${unit.id}${token}`;

test('the socket is private to the gateway user', () => {
  assert.equal(statSync(server.path).mode & 0o777, 0o600);
});

test('a wrong token, an unknown unit or an unknown kind is closed', async () => {
  const unit = newUnit();
  const wrong = unit.token.slice(0, -1) + (unit.token.endsWith('A') ? 'B' : 'A');
  assert.equal(await closedByGateway(preamble('f', unit, wrong)), true, 'wrong token');
  assert.equal(await closedByGateway(`f${'0'.repeat(16)}${unit.token}`), true, 'unknown unit');
  assert.equal(await closedByGateway(preamble('x', unit)), true, 'unknown kind');
});

test('a connection that never sends its preamble is closed after the timeout', async () => {
  const started = performance.now();
  assert.equal(await closedByGateway('f0123'), true);
  assert.ok(performance.now() - started >= PREAMBLE_TIMEOUT_MS - 20, 'not before the timeout');
});

test('each kind is accepted once, bytes after the preamble reach the unit, and a spent token admits nothing more', async () => {
  const unit = newUnit();
  const out: Buffer[] = [];
  unit.scriptIo.stdout.on('data', (c: Buffer) => out.push(c));
  const held: Socket[] = [];
  // The script's output may follow its preamble in the same segment.
  assert.equal(await closedByGateway(preamble('o', unit) + 'early output', (s) => held.push(s)), false, 'stdio accepted');
  await waitFor(() => Buffer.concat(out).toString() === 'early output', 2000, 'the early output');
  assert.equal(await closedByGateway(preamble('o', unit)), true, 'a second stdio connection');
  assert.equal(await closedByGateway(preamble('e', unit), (s) => held.push(s)), false, 'stderr accepted');
  // The frame channel: its first frame names the unit's init, and is not passed on.
  const hello = Buffer.from(JSON.stringify({ type: 'hello', pid: 4242 }));
  const frame = Buffer.concat([Buffer.alloc(4), hello]);
  frame.writeUInt32BE(hello.length, 0);
  assert.equal(await closedByGateway(Buffer.concat([Buffer.from(preamble('f', unit)), frame]), (s) => held.push(s)), false, 'frames accepted');
  assert.equal(unit.pid, 4242);
  // All three are there: the token is spent, whatever kind comes next.
  for (const kind of ['o', 'e', 'f']) assert.equal(await closedByGateway(preamble(kind, unit)), true, `a late ${kind} connection`);
  for (const s of held) s.destroy();
});

test('a unit that has ended admits no connection', async () => {
  const unit = newUnit();
  unit.reportExit(0, null);
  await within(unit.exited, 2000, 'the exit');
  assert.equal(await closedByGateway(preamble('f', unit)), true);
});
