import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { inspectorCommand, reportStartup, startupSummary, summaryLines, type StartupSummary } from '../../supervisor/http/startup-summary.js';
import { notReadyReason, Readiness } from '../../supervisor/platform/health/readiness.js';

// The summary printed once the gateway listens, from the gateway's readiness: here one made up of
// a ready, a required not-ready and an optional not-ready component.

const readiness = new Readiness(new Set(['fixture_optional']));
readiness.register({ name: 'fixture_ready', probe: () => ({ ready: true, status: 'ok' }) });
readiness.register({ name: 'fixture_required', probe: () => ({ ready: false, status: 'unreachable', reason: 'nothing listens on 127.0.0.1:9', action: 'start the backend' }) });
readiness.register({ name: 'fixture_optional', probe: () => ({ ready: false, status: 'not_configured', reason: 'no key' }) });
const gateway = { readiness };

test("the first client command is the Inspector's CLI on Node 22 listing the tools", () => {
  assert.equal(inspectorCommand('http://127.0.0.1:8765/mcp'), 'npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 mcp-inspector --cli http://127.0.0.1:8765/mcp --transport http --method tools/list');
});

test('the summary: /mcp URL, readiness, the not-ready components with their status and action, required and optional apart', async () => {
  const summary = await startupSummary({ gateway, url: 'http://127.0.0.1:8765' }, false);
  assert.equal(summary.url, 'http://127.0.0.1:8765/mcp');
  assert.equal(summary.ready, false);
  assert.deepEqual(summary.ready_components, ['fixture_ready']);
  assert.deepEqual(summary.not_ready, [{ component: 'fixture_required', reason: 'nothing listens on 127.0.0.1:9', action: 'start the backend', status: 'unreachable' }]);
  assert.deepEqual(summary.optional_not_ready, [{ component: 'fixture_optional', reason: 'no key', action: notReadyReason('x', { ready: false, status: 's' }).action, status: 'not_configured' }]);
  assert.equal(summary.first_client_command, inspectorCommand('http://127.0.0.1:8765/mcp'));
  assert.equal(summary.credential_note, undefined);
  const withAuth = await startupSummary({ gateway, url: 'http://127.0.0.1:8765' }, true);
  assert.match(withAuth.credential_note!, /^this gateway asks for a credential on loopback too: give the Inspector a static token/);
});

test('summaryLines: one line per fact, the to-do under each not-ready component, the note in brackets', () => {
  const s: StartupSummary = {
    url: 'http://127.0.0.1:1/mcp',
    ready: false,
    ready_components: ['a', 'b'],
    not_ready: [{ component: 'c', status: 'error', reason: 'broken', action: 'fix c' }],
    optional_not_ready: [{ component: 'd', status: 'missing', reason: 'absent', action: 'install d' }],
    first_client_command: 'cmd',
    credential_note: 'a token',
  };
  assert.equal(
    summaryLines(s),
    [
      'hermes-mcp-gateway serving http://127.0.0.1:1/mcp: not ready (1 required component)',
      '  ready: a, b',
      '  not ready: c (error): broken',
      '    to do: fix c',
      '  optional, not ready: d (missing): absent',
      '    to do: install d',
      '  first client command:',
      '    cmd',
      '    (a token)',
      '',
    ].join('\n'),
  );
  const { credential_note: _note, ...noNote } = s;
  const ready = summaryLines({ ...noNote, ready: true, ready_components: [], not_ready: [], optional_not_ready: [] });
  assert.equal(ready, 'hermes-mcp-gateway serving http://127.0.0.1:1/mcp: ready\n  ready: (none)\n  first client command:\n    cmd\n');
  const two = summaryLines({ ...s, not_ready: [...s.not_ready, ...s.not_ready] });
  assert.match(two, /: not ready \(2 required components\)\n/);
});

test('reportStartup writes those lines to the stream it is given', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  await reportStartup({ gateway, url: 'http://127.0.0.1:8765' }, { authRequired: false, out });
  assert.equal(text, summaryLines(await startupSummary({ gateway, url: 'http://127.0.0.1:8765' }, false)));
});
