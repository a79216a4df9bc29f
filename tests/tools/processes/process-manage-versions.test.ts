import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { call, openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

// process_manage follows the Hermes the gateway fronts: 0.19's `process` answers with
// HERMES_MCP_HERMES_VERSION=0.19.0; 0.22.2's process_manage (handoff answered as Hermes answers a
// caller that is not a subagent, ids by unique prefix among the caller's own processes, log
// offset 0 = the head, output_cut, process_running and the longer wait note, the newer list
// fields) with 0.22.2. Processes are started through the registry's entry point (the jobs
// adapter's), then driven over real MCP calls.

async function owner(gw: TestGateway) {
  const { client, token } = await openSession(gw.mcpUrl);
  const ownerId = `cap:${gw.gateway.capabilities.resolve(token).id}`;
  const act = async (args: Record<string, unknown>) => (await viaBridge(client, 'process_manage', args, token)).data;
  return { client, token, ownerId, act };
}

async function actionEnum(client: Client): Promise<string[]> {
  const { data } = await call(client, 'tool_describe', { names: ['process_manage'] });
  const schema = (data.tools as Record<string, { parameters: { properties: Record<string, { enum?: string[] }> } }>).process_manage!.parameters;
  return schema.properties.action!.enum!;
}

describe('process_manage following Hermes 0.19.0', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ env: { HERMES_MCP_HERMES_VERSION: '0.19.0' } });
  });
  after(async () => gw.close());

  test("0.19's answers: no handoff, no prefixes, offset 0 = the tail, no output_cut, the short wait note, the short list entry", async () => {
    const { client, ownerId, act } = await owner(gw);
    try {
      assert.deepEqual(await actionEnum(client), ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit', 'close', 'resize']);
      assert.equal((await act({ action: 'handoff', session_id: 'proc_000000000000' })).error, 'INVALID_ARGUMENTS');
      const p = await gw.native.processes.start(ownerId, 'seq 1 3000', gw.home, { persistOnRelease: true });
      const waited = await act({ action: 'wait', session_id: p.id, timeout: 10 });
      assert.equal(waited.status, 'exited');
      assert.equal(waited.output_cut, undefined);
      assert.equal((await act({ action: 'poll', session_id: p.id.slice(0, 9) })).error, 'PROCESS_NOT_FOUND');
      assert.equal((await act({ action: 'log', session_id: p.id, offset: 0, limit: 2 })).output, '2999\n3000');
      const [entry] = (await act({ action: 'list' })).processes as Array<Record<string, unknown>>;
      assert.equal(entry!.exit_code, 0);
      for (const field of ['exited_at', 'completion_reason', 'persist_on_release']) assert.equal(field in entry!, false, field);
      const slow = await gw.native.processes.start(ownerId, 'sleep 30', gw.home);
      const timedOut = await act({ action: 'wait', session_id: slow.id, timeout: 1 });
      assert.deepEqual({ ...timedOut, command: undefined }, { status: 'timeout', command: undefined, output: '', timeout_note: 'Waited 1s, process still running' });
      await act({ action: 'kill', session_id: slow.id });
    } finally {
      await client.close();
    }
  });
});

describe('process_manage following Hermes 0.22.2', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ env: { HERMES_MCP_HERMES_VERSION: '0.22.2' }, limits: { processWaitMaxSeconds: 2 } });
  });
  after(async () => gw.close());

  test('handoff is in the schema and answered as Hermes answers a caller that is not a subagent', async () => {
    const { client, ownerId, act } = await owner(gw);
    try {
      assert.deepEqual(await actionEnum(client), ['list', 'poll', 'log', 'wait', 'kill', 'write', 'submit', 'close', 'handoff', 'resize']);
      const p = await gw.native.processes.start(ownerId, 'sleep 30', gw.home);
      assert.deepEqual(await act({ action: 'handoff' }), { error: 'INVALID_ARGUMENTS', message: 'session_id is required for handoff' });
      for (const id of [p.id, 'proc_000000000000']) {
        assert.deepEqual(await act({ action: 'handoff', session_id: id, data: 'runs the docs build' }), {
          error: 'INVALID_ARGUMENTS',
          message: 'handoff is only available to a running subagent with a live parent; you are not one.',
        });
      }
      assert.equal(p.exited, false, 'the process is untouched');
      await act({ action: 'kill', session_id: p.id });
    } finally {
      await client.close();
    }
  });

  test("ids by a unique prefix of the caller's own processes only", async () => {
    const a = await owner(gw);
    const b = await owner(gw);
    try {
      const p = await gw.native.processes.start(a.ownerId, 'echo hi', gw.home);
      await a.act({ action: 'wait', session_id: p.id, timeout: 10 });
      const hex = p.id.slice('proc_'.length);
      for (const id of [p.id.slice(0, 9), hex.slice(0, 4), hex, ` ${p.id.slice(0, 10)} `]) {
        const r = await a.act({ action: 'poll', session_id: id });
        assert.equal(r.session_id, p.id, id);
        assert.equal(r.status, 'exited');
      }
      for (const id of [p.id.slice(0, 8), hex.slice(0, 3)]) assert.deepEqual(await a.act({ action: 'poll', session_id: id }), { error: 'PROCESS_NOT_FOUND', message: `No process with ID ${id}`, status: 'not_found' }, 'too short');
      assert.equal((await b.act({ action: 'poll', session_id: p.id.slice(0, 9) })).error, 'PROCESS_NOT_FOUND', "another owner's prefix finds nothing");
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  test('log offset 0 is the head; wait and kill carry output_cut; a timed-out wait says process_running', async () => {
    const { client, ownerId, act } = await owner(gw);
    try {
      const p = await gw.native.processes.start(ownerId, 'seq 1 3000', gw.home, { persistOnRelease: true });
      const waited = await act({ action: 'wait', session_id: p.id, timeout: 10 });
      assert.equal(waited.status, 'exited');
      const full = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join('');
      assert.equal(waited.output_cut, full.length - 2000);
      assert.equal(waited.output, full.slice(-2000));
      assert.equal((await act({ action: 'log', session_id: p.id, offset: 0, limit: 2 })).output, '1\n2');
      assert.equal((await act({ action: 'log', session_id: p.id, limit: 2 })).output, '2999\n3000');
      const killed = await act({ action: 'kill', session_id: p.id });
      assert.equal(killed.status, 'already_exited');
      assert.equal(killed.output_cut, full.length - 2000);
      const short = await gw.native.processes.start(ownerId, 'echo one', gw.home);
      const shortWait = await act({ action: 'wait', session_id: short.id, timeout: 10 });
      assert.equal('output_cut' in shortWait, false, 'no cut when everything is shown');
      const entries = (await act({ action: 'list' })).processes as Array<Record<string, unknown>>;
      const listed = entries.find((e) => e.session_id === p.id)!;
      assert.equal(listed.persist_on_release, true);
      assert.equal(listed.completion_reason, 'exited');
      assert.equal(typeof listed.exited_at, 'number');
      assert.ok(Math.abs((listed.exited_at as number) - Date.now() / 1000) < 60);
      assert.equal('persist_on_release' in entries.find((e) => e.session_id === short.id)!, false);
      const slow = await gw.native.processes.start(ownerId, 'sleep 30', gw.home);
      const timedOut = await act({ action: 'wait', session_id: slow.id, timeout: 1 });
      assert.equal(timedOut.status, 'timeout');
      assert.equal(timedOut.process_running, true);
      assert.match(String(timedOut.timeout_note), /^Wait window of 1s elapsed — the process is still running\. This is not an error\. Uptime: \d+s\. Poll again later or wait again/);
      const clamped = await act({ action: 'wait', session_id: slow.id, timeout: 600 });
      assert.match(String(clamped.timeout_note), /^Requested wait of 600s was clamped to configured limit of 2s\. Wait window of 2s elapsed — the process is still running\./);
      const cut = await act({ action: 'kill', session_id: slow.id });
      assert.equal(cut.status, 'killed');
      assert.equal('output_cut' in cut, false);
    } finally {
      await client.close();
    }
  });

  test('the completion tail is the last 2000 characters as Python counts them (code points): no lone surrogate from a cut astral character', async () => {
    const { client, ownerId, act } = await owner(gw);
    try {
      const p = await gw.native.processes.start(ownerId, "printf '%.0s\u{1F600}' $(seq 1 2500); echo", gw.home);
      const waited = await act({ action: 'wait', session_id: p.id, timeout: 10 });
      assert.equal(waited.status, 'exited');
      const full = '\u{1F600}'.repeat(2500) + '\n';
      // Hermes' _completion_output: output[-2000:] and len(output) - 2000, both in code points.
      assert.equal(waited.output, '\u{1F600}'.repeat(1999) + '\n');
      assert.equal(waited.output_cut, [...full].length - 2000);
    } finally {
      await client.close();
    }
  });
});
