import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../supervisor/platform/telemetry.js';
import { logSink } from '../helpers/log-sink.js';

// The gateway's logger redacts every record on its way out: fields, the message and serialized
// errors. A GitLab token (assembled here, not a real one) stands for any credential a failing
// command, a provider error or a stack trace might quote.

const GITLAB_PAT = 'glpat-' + 'Xq7vR2mK9tLw4ZpN8sDe';

test('fields, messages and errors are redacted before a log line is written', () => {
  const { stream: sink, lines } = logSink();
  const log = createLogger('info', sink);
  log.warn({ event: 'worker_failed', reason: `git clone failed: remote said ${GITLAB_PAT}`, nested: { detail: [GITLAB_PAT] } }, `clone with ${GITLAB_PAT} failed`);
  log.error({ event: 'tool_internal_error', err: new Error(`provider rejected ${GITLAB_PAT}`) });
  log.info({ event: 'listening', port: 3060 }, 'hermes-mcp-gateway listening');
  log.flush();

  const raw = lines.join('\n');
  assert.equal(lines.length, 3);
  assert.ok(!raw.includes(GITLAB_PAT), raw);
  const [warn, error, info] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(warn?.reason, 'git clone failed: remote said glpat-...8sDe');
  assert.deepEqual(warn?.nested, { detail: ['glpat-...8sDe'] });
  assert.equal(warn?.msg, 'clone with glpat-...8sDe failed');
  assert.match(String((error?.err as { message: string }).message), /^provider rejected glpat-\.\.\.8sDe$/);
  assert.match(String((error?.err as { stack: string }).stack), /provider rejected glpat-\.\.\.8sDe/);
  // Clean records pass through unchanged.
  assert.equal(info?.msg, 'hermes-mcp-gateway listening');
  assert.equal(info?.port, 3060);
});

test('an err that is not an Error is logged as one redacted string, not one field per character', () => {
  const { stream: sink, lines } = logSink();
  const log = createLogger('info', sink);
  log.error({ event: 'release_hook_failed', err: `hook failed: ${GITLAB_PAT}` });
  log.flush();
  const [line] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(line?.err, 'hook failed: glpat-...8sDe');
});
