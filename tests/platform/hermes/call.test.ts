import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { HermesCaller } from '../../../supervisor/platform/hermes/call.js';
import { locateHermes } from '../../../supervisor/platform/hermes/locate.js';
import { createWorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { hermes } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';
import { processesWithHome } from '../../helpers/procfs.js';

// A call of one of Hermes' own functions in a Hermes call worker, against the pinned real Hermes:
// its value, or a stable code when this Hermes lacks the function, the worker outlives its budget,
// the call is cancelled, or no Hermes is installed; and nothing the call started outlives it.

const temp = tempDirs();
after(() => temp.removeAll());

async function caller(python?: string): Promise<{ caller: HermesCaller; home: string }> {
  const home = temp.make('hmcp-hermes-call-');
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  // HOME: the service user's home is the caller's own, so the machine's ~/.hermes is never looked at.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, 'state'), ...(python ? { HERMES_AGENT_PYTHON: python } : {}) };
  const config = loadConfig(env, { inheritedEnvironment: { PATH: env.PATH } });
  return { caller: new HermesCaller(createWorkerRuntime(config, env), await locateHermes(config)), home };
}


async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof GatewayError, String(e));
    return e.code;
  }
  assert.fail('the call did not fail');
}

const NOTEBOOK = JSON.stringify({ cells: [{ cell_type: 'code', source: ['print("hermes-call")\n'], outputs: [], metadata: {}, execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });

test("Hermes' own document extraction: a notebook's text where this Hermes has it (0.22), HERMES_CALL_UNSUPPORTED where it does not (0.19)", async () => {
  const { caller: c, home } = await caller(hermes().python);
  const call = c.call('documents', 'extract', { path: 'demo.ipynb', data: Buffer.from(NOTEBOOK).toString('base64') }, { timeoutMs: 60_000 });
  if (hermes().pin === 'oldest') {
    assert.equal(await code(call), ErrorCode.HERMES_CALL_UNSUPPORTED);
  } else {
    const value = (await call) as { text?: string };
    assert.match(value.text ?? '', /print\("hermes-call"\)/);
  }
  assert.deepEqual(processesWithHome(home), []);
});

test('an operation the module does not have: HERMES_CALL_FAILED, saying so', async () => {
  const { caller: c } = await caller(hermes().python);
  await assert.rejects(c.call('documents', 'shred', {}, { timeoutMs: 60_000 }), (e: GatewayError) => e.code === ErrorCode.HERMES_CALL_FAILED && /has no operation 'shred'/.test(e.message));
});

test('past its budget the worker is killed with all it started: HERMES_CALL_TIMEOUT', async () => {
  const { caller: c, home } = await caller(hermes().python);
  assert.equal(await code(c.call('documents', 'extract', { path: 'x.ipynb', data: '' }, { timeoutMs: 1 })), ErrorCode.HERMES_CALL_TIMEOUT);
  assert.deepEqual(processesWithHome(home), []);
});

test('a cancelled call: CANCELLED, and nothing left running', async () => {
  const { caller: c, home } = await caller(hermes().python);
  const abort = new AbortController();
  const call = c.call('documents', 'extract', { path: 'x.ipynb', data: '' }, { timeoutMs: 60_000, signal: abort.signal });
  setTimeout(() => abort.abort(), 20);
  assert.equal(await code(call), ErrorCode.CANCELLED);
  assert.deepEqual(processesWithHome(home), []);
});

test('with no Hermes found a call is HERMES_AGENT_NOT_INSTALLED before anything starts', async () => {
  const { caller: c, home } = await caller();
  assert.equal(c.available, false);
  assert.equal(await code(c.call('documents', 'extract', {}, { timeoutMs: 60_000 })), ErrorCode.HERMES_AGENT_NOT_INSTALLED);
  assert.deepEqual(processesWithHome(home), []);
});

test('a Python that answers without Hermes is no Hermes: unavailable, and a call is HERMES_AGENT_NOT_INSTALLED before anything starts', async () => {
  // locate.ts answers not_installed with the interpreter named (it answered, it has no hermes_cli).
  const { caller: c, home } = await caller('/usr/bin/python3');
  assert.equal(c.available, false);
  assert.equal(await code(c.call('documents', 'extract', {}, { timeoutMs: 60_000 })), ErrorCode.HERMES_AGENT_NOT_INSTALLED);
  assert.deepEqual(processesWithHome(home), []);
});
