import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { call, openSession, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';

// terminal keeps Hermes' field names (background, pty, notify_on_complete, watch_patterns, an
// uncapped timeout) so Hermes-shaped calls reach the refusal; each of those fields must say in its
// own description that it is refused and what to use instead, and the refusals stay as they were.

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => gw.close());

test('terminal describes every refused field: refused, with which code, and job_prepare/job_start instead', async () => {
  const { client } = await openSession(gw.mcpUrl);
  try {
    const { data } = await call(client, 'tool_describe', { names: ['terminal'] });
    const props = (data.tools as Record<string, { parameters: { properties: Record<string, { description?: string }> } }>).terminal!.parameters.properties;
    for (const field of ['background', 'pty', 'notify_on_complete', 'watch_patterns', 'timeout']) {
      const description = props[field]?.description ?? '';
      assert.match(description, /[Rr]efused/, `${field}: ${description}`);
      assert.match(description, /LONG_RUNNING_OPERATION_REQUIRES_JOB/, field);
      assert.match(description, /job_prepare/, field);
      assert.match(description, /job_start/, field);
    }
    assert.match(props.timeout!.description!, /maximum 30\b/, 'the timeout quotes the configured maximum');
    for (const field of ['command', 'workdir']) assert.ok((props[field]?.description ?? '').length > 0, field);
  } finally {
    await client.close();
  }
});

test('the refusals themselves are unchanged: each refused field fails before anything runs', async () => {
  const { client, token } = await openSession(gw.mcpUrl);
  try {
    const flag = join(gw.home, 'ran-flag');
    for (const extra of [{ background: true }, { pty: true }, { notify_on_complete: true }, { watch_patterns: ['done'] }, { timeout: 31 }]) {
      const r = await viaBridge(client, 'terminal', { command: `touch ${flag}`, ...extra }, token);
      assert.equal(r.data.error, 'LONG_RUNNING_OPERATION_REQUIRES_JOB', JSON.stringify(extra));
      assert.match(String(r.data.message), /job_prepare \+ job_start/);
    }
    assert.equal(existsSync(flag), false, 'nothing ran');
    const allowed = await viaBridge(client, 'terminal', { command: 'echo ok', background: false, pty: false, notify_on_complete: false, watch_patterns: [], timeout: 30 }, token);
    assert.deepEqual(allowed.data, { output: 'ok', exit_code: 0, error: null });
  } finally {
    await client.close();
  }
});
