import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import type { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { createWorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import type { CallUnit } from '../../../supervisor/tools/execute-code/call-unit.js';
import { scriptTerminal } from '../../../supervisor/tools/execute-code/script-terminal.js';
import type { ExecuteUnit } from '../../../supervisor/tools/execute-code/units/unit.js';
import { tempDirs } from '../../helpers/temp.js';
import { monotonicMs } from '../../../shared/clock.js';

// hermes_tools.terminal inside a script: the approval guard first (blocked, never run), Hermes'
// refusal of self-backgrounding, then the unit's worker runs it within the call's deadline.

const temp = tempDirs();
after(() => temp.removeAll());

const home = temp.make('hmcp-script-terminal-');
const runtime = createWorkerRuntime(loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.state'), HERMES_MCP_TERMINAL_CWD: home }), process.env);
const release = { has: () => false } as unknown as HermesRelease;
const ctx = { owner: { id: 'request:1', kind: 'request' } } as unknown as CallContext;

function unitWith(requests: Array<Record<string, unknown>>, reply: Record<string, unknown>, deadlineInMs = 60_000): CallUnit {
  const worker = { request: async (body: Record<string, unknown>) => (requests.push(body), reply) } as unknown as ExecuteUnit;
  return { worker, dir: '/unit/state', cwd: home, call: { ctx, deadline: monotonicMs() + deadlineInMs } } as unknown as CallUnit;
}

test("an allowed command runs on the unit's worker, in its cwd, bounded by the call's deadline", async () => {
  const requests: Array<Record<string, unknown>> = [];
  const out = await scriptTerminal(unitWith(requests, { exitCode: 0, timedOut: false, output: 'hello\n', outputBytes: 6 }, 30_500), { command: 'echo hello', timeout: 600 }, runtime, release);
  assert.equal(requests.length, 1);
  // The deadline (30.5 s away) bounds the 600 s asked for, in whole seconds: 30 s, or 29 s when the
  // guard's check took more than the half second on a loaded machine.
  const timeoutMs = requests[0]!.timeoutMs as number;
  assert.ok([29_000, 30_000].includes(timeoutMs), `timeoutMs ${timeoutMs}`);
  assert.deepEqual({ ...requests[0], maxOutputBytes: undefined, timeoutMs: undefined }, { type: 'exec', command: 'echo hello', cwd: home, timeoutMs: undefined, stateDir: '/unit/state', maxOutputBytes: undefined });
  assert.equal(requests[0]!.maxOutputBytes, runtime.config.limits.workerTransportMaxBytes);
  assert.deepEqual(out, { output: 'hello', exit_code: 0, error: null });
});

test('a workdir argument moves the command; a smaller timeout wins over the deadline', async () => {
  const requests: Array<Record<string, unknown>> = [];
  await scriptTerminal(unitWith(requests, { exitCode: 0, timedOut: false, output: '', outputBytes: 0 }), { command: 'ls', workdir: '/tmp', timeout: 7 }, runtime, release);
  assert.equal(requests[0]!.cwd, '/tmp');
  assert.equal(requests[0]!.timeoutMs, 7000);
});

test('a dangerous command is blocked before anything reaches the worker', async () => {
  const requests: Array<Record<string, unknown>> = [];
  const out = (await scriptTerminal(unitWith(requests, {}), { command: 'rm -rf /tmp/x' }, runtime, release)) as Record<string, unknown>;
  assert.deepEqual(requests, []);
  assert.equal(out.status, 'blocked');
  assert.equal(out.exit_code, -1);
  assert.match(String(out.error), /^Command denied: .+\. execute_code scripts get no further approvals; the script itself was the one approval\./);
});

test("a command that backgrounds itself gets Hermes' guidance and does not run", async () => {
  const requests: Array<Record<string, unknown>> = [];
  const out = (await scriptTerminal(unitWith(requests, {}), { command: 'sleep 100 &' }, runtime, release)) as Record<string, unknown>;
  assert.deepEqual(requests, []);
  assert.deepEqual([out.output, out.exit_code, out.status], ['', -1, 'error']);
  assert.equal(typeof out.error, 'string');
});

test("the worker's failure to run the command comes back as its error", async () => {
  const out = await scriptTerminal(unitWith([], { error: 'worker busy' }), { command: 'true' }, runtime, release);
  assert.deepEqual(out, { error: 'worker busy' });
});
