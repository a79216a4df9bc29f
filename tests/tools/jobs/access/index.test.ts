import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../../shared/errors.js';
import type { CallContext, ToolDefinition } from '../../../../supervisor/core/tool-types.js';
import { openStore, refuseGuarded, storeFailuresExplained, type JobToolContext } from '../../../../supervisor/tools/jobs/access/index.js';
import type { GuardConfig } from '../../../../supervisor/tools/command-guards/index.js';
import type { Limits } from '../../../../shared/limits.js';

const context = (store: JobToolContext['store']): JobToolContext => ({ store, roots: [], limits: {} as Limits, guard: {} as GuardConfig, cwdFor: () => '/' });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof GatewayError ? e.code : 'not a GatewayError';
  }
  return undefined;
}

test('without a database every job call is JOB_STORE_UNAVAILABLE with the reason', () => {
  const ctx = context(() => ({ unavailable: 'directory /x is group-writable' }));
  assert.throws(() => openStore(ctx), (e: unknown) => e instanceof GatewayError && e.code === 'JOB_STORE_UNAVAILABLE' && /group-writable/.test(e.message));
});

test("the guard's refusals: a hardline pattern is COMMAND_BLOCKED, a deny rule COMMAND_DENIED, each saying what became of the job", () => {
  assert.equal(codeOf(() => refuseGuarded({ verdict: 'allow' } as Parameters<typeof refuseGuarded>[0], 'x')), undefined);
  assert.throws(
    () => refuseGuarded({ verdict: 'hardline', key: 'rm -rf /' } as Parameters<typeof refuseGuarded>[0], 'nothing was prepared'),
    (e: unknown) => e instanceof GatewayError && e.code === 'COMMAND_BLOCKED' && /nothing was prepared/.test(e.message) && e.details?.pattern_key === 'rm -rf /',
  );
  assert.throws(
    () => refuseGuarded({ verdict: 'deny', rule: 'git push*', file: '/h/config.yaml' } as Parameters<typeof refuseGuarded>[0], 'the job stays prepared'),
    (e: unknown) => e instanceof GatewayError && e.code === 'COMMAND_DENIED' && /the job stays prepared\)$/.test(e.message),
  );
});

test("a SQLite write failure becomes JOB_STORE_UNAVAILABLE with SQLite's reason; any other error passes as it is", async () => {
  const failing = (error: Error): ToolDefinition => storeFailuresExplained({ name: 't', description: '', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false }, handler: () => Promise.reject(error) });
  const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  await assert.rejects(failing(full).handler({}, {} as CallContext), (e: unknown) => e instanceof GatewayError && e.code === 'JOB_STORE_UNAVAILABLE' && /SQLITE_FULL: database or disk is full/.test(e.message));
  const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  await assert.rejects(failing(busy).handler({}, {} as CallContext), (e: unknown) => e === busy);
  const plain = new GatewayError('JOB_NOT_FOUND' as never, 'no job');
  await assert.rejects(failing(plain).handler({}, {} as CallContext), (e: unknown) => e === plain);
});
