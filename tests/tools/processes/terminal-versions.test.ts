import assert from 'node:assert/strict';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { call, openSession, startTestGateway, type TestGateway, viaBridge } from '../../helpers/gateway.js';

// terminal follows the Hermes the gateway fronts: with HERMES_MCP_HERMES_VERSION=0.19.0 it is
// 0.19's terminal (notify_on_complete/watch_patterns, workdir recorded as the session's cwd, no
// cwd/hint fields); with 0.22.2 (and with no version known, the newest) it has notify, heartbeat
// and persist_on_release, refuses truthy notify/persist_on_release before execution, accepts and
// drops heartbeat, keeps the session's cwd across a workdir call, and answers with cwd, hint and
// signal notes. Every call here is a real command in a real terminal worker.

type Props = Record<string, Record<string, unknown>>;

async function schemaOf(client: Client): Promise<{ properties: Props; required: string[] }> {
  const { data } = await call(client, 'tool_describe', { names: ['terminal'] });
  return (data.tools as Record<string, { parameters: { properties: Props; required: string[] } }>).terminal!.parameters;
}

const runIn = (client: Client, token: string) => async (args: Record<string, unknown>) => (await viaBridge(client, 'terminal', args, token)).data;

describe('terminal following Hermes 0.19.0', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ env: { HERMES_MCP_HERMES_VERSION: '0.19.0' } });
  });
  after(async () => gw.close());

  test("the schema is 0.19's: notify_on_complete and watch_patterns, no notify/heartbeat/persist_on_release", async () => {
    const { client } = await openSession(gw.mcpUrl);
    try {
      const schema = await schemaOf(client);
      assert.deepEqual(Object.keys(schema.properties).sort(), ['background', 'command', 'notify_on_complete', 'pty', 'timeout', 'watch_patterns', 'workdir']);
      assert.deepEqual(schema.required, ['command']);
      assert.equal(schema.properties.notify_on_complete!.default, false);
    } finally {
      await client.close();
    }
  });

  test('notify and heartbeat are unknown arguments; a workdir call moves the session; no cwd, hint or signal note', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const run = runIn(client, token);
    try {
      for (const extra of [{ notify: false }, { heartbeat: 0 }, { persist_on_release: false }]) {
        assert.equal((await run({ command: 'true', ...extra })).error, 'INVALID_ARGUMENTS', JSON.stringify(extra));
      }
      const sub = join(gw.home, 'v19-sub');
      mkdirSync(sub, { recursive: true });
      await run({ command: `cd ${gw.home}` });
      assert.deepEqual(await run({ command: 'pwd', workdir: sub }), { output: realpathSync(sub), exit_code: 0, error: null });
      assert.equal((await run({ command: 'pwd' })).output, realpathSync(sub), 'the workdir became the session cwd');
      assert.deepEqual(await run({ command: 'mkdir -p deeper && cd deeper' }), { output: '', exit_code: 0, error: null });
      assert.deepEqual(await run({ command: 'exit 137' }), { output: '', exit_code: 137, error: null });
      assert.deepEqual(await run({ command: 'exit 124' }), { output: '', exit_code: 124, error: null });
      assert.equal((await run({ command: 'echo "[$AI_AGENT][$GIT_PAGER]"' })).output, '[][]');
    } finally {
      await client.close();
    }
  });
});

describe('terminal following Hermes 0.22.2', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ env: { HERMES_MCP_HERMES_VERSION: '0.22.2' } });
  });
  after(async () => gw.close());

  test("the schema has Hermes' notify, heartbeat and persist_on_release (types, minimum, defaults) and keeps the legacy aliases", async () => {
    const { client } = await openSession(gw.mcpUrl);
    try {
      const { properties } = await schemaOf(client);
      assert.deepEqual(Object.keys(properties).sort(), ['background', 'command', 'heartbeat', 'notify', 'notify_on_complete', 'persist_on_release', 'pty', 'timeout', 'watch_patterns', 'workdir']);
      assert.deepEqual(properties.notify!.anyOf, [{ type: 'boolean' }, { type: 'array', items: { type: 'string' } }]);
      assert.equal(properties.heartbeat!.type, 'integer');
      assert.equal(properties.heartbeat!.minimum, 0);
      assert.equal(properties.heartbeat!.default, 0);
      assert.match(String(properties.heartbeat!.description), /ignored/);
      assert.equal(properties.persist_on_release!.type, 'boolean');
      assert.equal(properties.persist_on_release!.default, false);
      for (const field of ['notify', 'persist_on_release', 'notify_on_complete', 'watch_patterns']) assert.match(String(properties[field]!.description), /Refused when/, field);
    } finally {
      await client.close();
    }
  });

  test('truthy notify and persist_on_release are refused before anything runs; heartbeat and falsy options run', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const run = runIn(client, token);
    const flag = join(gw.home, 'ran-flag');
    try {
      for (const extra of [{ notify: true }, { notify: ['ready'] }, { persist_on_release: true }, { pty: true }, { notify_on_complete: true }, { watch_patterns: ['x'] }, { background: true }, { timeout: 700 }]) {
        const r = await run({ command: `touch ${flag}`, ...extra });
        assert.equal(r.error, 'LONG_RUNNING_OPERATION_REQUIRES_JOB', JSON.stringify(extra));
        assert.match(String(r.message), /job_prepare \+ job_start/);
      }
      assert.equal(existsSync(flag), false, 'nothing ran');
      assert.deepEqual(await run({ command: 'echo beat', heartbeat: 60 }), { output: 'beat', exit_code: 0, error: null });
      const falsy = await run({ command: 'echo ok', background: false, pty: false, notify: false, heartbeat: 0, persist_on_release: false, notify_on_complete: false, watch_patterns: [], timeout: 30 });
      assert.deepEqual(falsy, { output: 'ok', exit_code: 0, error: null });
      assert.deepEqual(await run({ command: 'echo ok', notify: [] }), { output: 'ok', exit_code: 0, error: null });
      for (const heartbeat of [-1, true, 1.5]) assert.equal((await run({ command: 'true', heartbeat })).error, 'INVALID_ARGUMENTS', String(heartbeat));
    } finally {
      await client.close();
    }
  });

  test("a workdir applies to its call only; a command that changes directory reports where it ended (cwd)", async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const run = runIn(client, token);
    try {
      const sub = join(gw.home, 'v22-sub');
      mkdirSync(sub, { recursive: true });
      const home = realpathSync(gw.home);
      await run({ command: `cd ${home}` });
      assert.deepEqual(await run({ command: 'pwd', workdir: sub }), { output: realpathSync(sub), exit_code: 0, error: null }, 'no cwd: it ended where it started');
      assert.equal((await run({ command: 'pwd' })).output, home, 'the session cwd is kept');
      assert.deepEqual(await run({ command: 'mkdir -p inner && cd inner', workdir: sub }), { output: '', exit_code: 0, error: null, cwd: join(realpathSync(sub), 'inner') });
      assert.equal((await run({ command: 'pwd' })).output, home, 'still the session cwd');
      assert.deepEqual(await run({ command: 'mkdir -p deeper && cd deeper' }), { output: '', exit_code: 0, error: null, cwd: join(home, 'deeper') });
      assert.equal((await run({ command: 'pwd' })).output, join(home, 'deeper'), 'without a workdir, where it ended is the session cwd');
    } finally {
      await client.close();
    }
  });

  test("signal notes, hints and Hermes' agent environment", async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const run = runIn(client, token);
    try {
      assert.deepEqual(await run({ command: 'exit 137' }), {
        output: '',
        exit_code: 137,
        error: null,
        exit_code_meaning: 'Exit code 137 usually means the command was terminated by signal 9: SIGKILL — often the kernel OOM killer on memory exhaustion, or an explicit kill -9',
      });
      assert.deepEqual(await run({ command: 'exit 130' }), { output: '', exit_code: 130, error: null }, '130 (SIGINT) has no note');
      const timedOut = await run({ command: 'sleep 5', timeout: 1 });
      assert.equal(timedOut.exit_code, 124);
      assert.match(String(timedOut.hint), /^Exit 124: the command hit its timeout\. Raise timeout= \(at most 30s here\) or run it as a job \(job_prepare \+ job_start\)/);
      await run({ command: "printf 'Traceback (most recent call last):\\n' > t.log" });
      const masked = await run({ command: "bash -c 'cat t.log' | tail -1" });
      assert.equal(masked.exit_code, 0);
      assert.match(String(masked.hint), /^exit_code 0 here is the status of the last pipeline command/);
      assert.equal((await run({ command: 'grep zzz /dev/null' })).hint, undefined, 'a meaning, so no hint');
      assert.equal((await run({ command: 'echo "[$AI_AGENT][$HERMES_AGENT][$GIT_PAGER][$PAGER]"' })).output, '[hermes-agent][true][cat][cat]');
      assert.equal((await run({ command: 'PAGER=less; echo "[$PAGER]"' })).output, '[less]', 'a value the session set is kept');
      assert.equal((await run({ command: 'echo "[$PAGER]"' })).output, '[less]');
    } finally {
      await client.close();
    }
  });
});

describe('terminal following the newest Hermes when no version is known', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => gw.close());

  test('the schema has notify, heartbeat and persist_on_release', async () => {
    const { client } = await openSession(gw.mcpUrl);
    try {
      const { properties } = await schemaOf(client);
      for (const field of ['notify', 'heartbeat', 'persist_on_release']) assert.ok(field in properties, field);
    } finally {
      await client.close();
    }
  });
});
