import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exitCode, formatText, fromProbe, type DoctorCheck } from '../../supervisor/doctor/report.js';

// A readiness probe's result as a doctor line, the text report and the exit code.

test('a required component that is not ready fails with its own action as the fix', () => {
  const check = fromProbe('camofox', { ready: false, required: true, status: 'unreachable', reason: 'connection refused', action: 'start Camofox' });
  assert.deepEqual(check, { name: 'camofox', level: 'fail', reason: 'connection refused', fix: 'start Camofox' });
});

test('an optional component that is not ready warns and says why it is only a warning', () => {
  const check = fromProbe('memory', { ready: false, required: false, status: 'unreachable', reason: 'no Honcho' });
  assert.equal(check.level, 'warn');
  assert.equal(check.reason, 'no Honcho (optional here: HERMES_MCP_OPTIONAL_COMPONENTS)');
  assert.match(check.fix!, /readyz/, 'no action and no fix given: the generic advice');
});

test('a fix named by the caller is used when the probe names none; the probe details reason stands in for a missing reason', () => {
  const check = fromProbe('native_execution', { ready: false, required: true, status: 'failed', details: { reason: 'no unshare' } }, { native_execution: 'install util-linux' });
  assert.deepEqual(check, { name: 'native_execution', level: 'fail', reason: 'no unshare', fix: 'install util-linux' });
});

test('ready but degraded or empty warns; ready and whole is ok, with its reason when it has one', () => {
  assert.equal(fromProbe('lsp', { ready: true, required: true, status: 'degraded', reason: 'pyright missing' }).reason, 'degraded: pyright missing');
  assert.equal(fromProbe('session_db', { ready: true, required: true, status: 'empty', reason: 'no sessions' }).level, 'warn');
  assert.deepEqual(fromProbe('roots', { ready: true, required: true, status: 'ok', reason: 'two roots' }), { name: 'roots', level: 'ok', reason: 'ok' });
  assert.deepEqual(fromProbe('graph', { ready: true, required: true, status: 'ready', reason: 'one root' }), { name: 'graph', level: 'ok', reason: 'ready: one root' });
});

test('the text report aligns names, shows fixes only for problems, and counts failures and warnings; only a failure exits 1', () => {
  const checks: DoctorCheck[] = [
    { name: 'configuration', level: 'ok', reason: 'fine', fix: 'never shown' },
    { name: 'lsp', level: 'warn', reason: 'degraded', fix: 'install pyright' },
  ];
  const text = formatText(checks);
  assert.equal(text, `OK    configuration  fine\nWARN  lsp            degraded\n                     fix: install pyright\nno check failed, 1 warning(s)\n`);
  assert.equal(exitCode(checks), 0);
  const failed = [...checks, { name: 'jobs', level: 'fail' as const, reason: 'locked', fix: 'stop the other gateway' }];
  assert.match(formatText(failed), /\n1 check\(s\) failed, 1 warning\(s\)\n$/);
  assert.equal(exitCode(failed), 1);
});
