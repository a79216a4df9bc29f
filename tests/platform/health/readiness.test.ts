import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { notReadyReason, Readiness, type ProbeResult } from '../../../supervisor/platform/health/readiness.js';

const OPTIONAL_TAIL = ', or set HERMES_MCP_OPTIONAL_COMPONENTS=memory to run without memory tools';

test('notReadyReason: the reason else the status, the action else the generic one', () => {
  assert.deepEqual(notReadyReason('lsp', { ready: false, status: 'missing', reason: 'no server', action: 'install one' }), { component: 'lsp', reason: 'no server', action: 'install one' });
  assert.deepEqual(notReadyReason('lsp', { ready: false, status: 'missing' }), { component: 'lsp', reason: 'missing', action: "see this component's reason and details in /readyz" });
});

test('a name registered twice is refused; names() keeps registration order', () => {
  const r = new Readiness(new Set());
  r.register({ name: 'b', probe: () => ({ ready: true, status: 'ok' }) });
  r.register({ name: 'a', probe: () => ({ ready: true, status: 'ok' }) });
  assert.throws(() => r.register({ name: 'b', probe: () => ({ ready: true, status: 'ok' }) }), /^Error: readiness component "b" registered twice$/);
  assert.deepEqual(r.names(), ['b', 'a']);
});

test('no components: ready with nothing to say', async () => {
  assert.deepEqual(await new Readiness(new Set()).check(), { ready: true, reasons: [], optionalReasons: [], components: {} });
});

test('a required component not ready blocks readiness; an optional one is only reported, without the advice to make it optional', async () => {
  const r = new Readiness(new Set(['memory']));
  r.register({ name: 'roots', probe: () => ({ ready: true, status: 'ok', details: { n: 1 } }) });
  r.register({ name: 'memory', probe: async () => ({ ready: false, status: 'not_configured', reason: 'no Honcho', action: `start Honcho${OPTIONAL_TAIL}` }) });
  const optionalOnly = await r.check();
  assert.equal(optionalOnly.ready, true);
  assert.deepEqual(optionalOnly.reasons, []);
  assert.deepEqual(optionalOnly.optionalReasons, [{ component: 'memory', reason: 'no Honcho', action: 'start Honcho' }]);
  assert.deepEqual(optionalOnly.components, {
    roots: { ready: true, status: 'ok', details: { n: 1 }, required: true },
    memory: { ready: false, status: 'not_configured', reason: 'no Honcho', action: 'start Honcho', required: false },
  });

  const required = new Readiness(new Set());
  required.register({ name: 'memory', probe: () => ({ ready: false, status: 'not_configured', reason: 'no Honcho', action: `start Honcho${OPTIONAL_TAIL}` }) });
  assert.deepEqual(await required.check(), {
    ready: false,
    reasons: [{ component: 'memory', reason: 'no Honcho', action: `start Honcho${OPTIONAL_TAIL}` }],
    optionalReasons: [],
    components: { memory: { ready: false, status: 'not_configured', reason: 'no Honcho', action: `start Honcho${OPTIONAL_TAIL}`, required: true } },
  });
});

test('a probe that throws (synchronously or not) is reported as status error with its message', async () => {
  const r = new Readiness(new Set());
  r.register({
    name: 'sync',
    probe: () => {
      throw new Error('boom');
    },
  });
  r.register({ name: 'async', probe: () => Promise.reject(new Error('later boom')) });
  const report = await r.check();
  assert.equal(report.ready, false);
  assert.deepEqual(report.reasons, [
    { component: 'sync', reason: 'boom', action: "see this component's reason and details in /readyz" },
    { component: 'async', reason: 'later boom', action: "see this component's reason and details in /readyz" },
  ]);
  assert.deepEqual(report.components.sync, { ready: false, status: 'error', reason: 'boom', required: true });
});

test('a probe that never answers is a timeout after 5 s, and the others still report', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] });
  t.after(() => mock.timers.reset());
  const r = new Readiness(new Set());
  r.register({ name: 'stuck', probe: () => new Promise<ProbeResult>(() => {}) });
  r.register({ name: 'quick', probe: () => ({ ready: true, status: 'ok' }) });
  const pending = r.check();
  await new Promise<void>((resolve) => setImmediate(resolve));
  mock.timers.tick(4999);
  let settled = false;
  void pending.then(() => (settled = true));
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(settled, false, 'not before 5 s');
  mock.timers.tick(1);
  const report = await pending;
  assert.deepEqual(report.components.stuck, {
    ready: false,
    status: 'timeout',
    reason: 'probe did not answer within 5000 ms',
    action: 'check that the backend behind this component is running and answering',
    required: true,
  });
  assert.deepEqual(report.components.quick, { ready: true, status: 'ok', required: true });
});
