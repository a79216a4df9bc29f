import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCode, isGatewayError } from '../../../shared/errors.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { executeCodeTool, type ExecuteCodePool } from '../../../supervisor/tools/execute-code/index.js';
import { tempDirs } from '../../helpers/temp.js';

// The execute_code tool definition: its description from the limits and the web tools offered, the
// code-size and resource-policy refusals before any unit starts, and the pool's result as structured.

const temp = tempDirs();
after(() => temp.removeAll());

const home = temp.make('hmcp-execute-index-');
const base = createWorkerRuntime(loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.state'), HERMES_MCP_TERMINAL_CWD: home }), process.env);
const runtime = (maxBytes: number, resources = base.resources): WorkerRuntime => ({ ...base, resources, config: { ...base.config, limits: { ...base.config.limits, executeCodeMaxBytes: maxBytes } } });

interface Run {
  code: string;
  owner: string;
  cwd: string;
}
function fakePool(runs: Run[]): ExecuteCodePool {
  const pool = {
    run: async (code: string, ctx: CallContext, cwd: string) => {
      runs.push({ code, owner: ctx.owner.id, cwd });
      return { status: 'success', output: 'hi\n', tool_calls_made: 0, duration_seconds: 0.1 };
    },
  };
  return pool as unknown as ExecuteCodePool;
}
const ctx: CallContext = { owner: { id: 'request:1', kind: 'request' }, signal: new AbortController().signal, callId: 'c1', era: 'modern', callNested: () => Promise.reject(new Error('no nested calls')) };

test('the script runs in the pool with the owner\'s directory; the result comes back as structured', async () => {
  const runs: Run[] = [];
  const tool = executeCodeTool(fakePool(runs), runtime(100), (owner) => `/work/${owner}`);
  assert.equal(tool.name, 'execute_code');
  assert.equal(tool.redaction, 'code-file');
  assert.equal(tool.holdsLease, true);
  const out = await tool.handler({ code: 'print("hi")', reset: 'true' }, ctx);
  assert.deepEqual(out, { structured: { status: 'success', output: 'hi\n', tool_calls_made: 0, duration_seconds: 0.1 } });
  assert.deepEqual(runs, [{ code: 'print("hi")', owner: 'request:1', cwd: '/work/request:1' }]);
});

test('code over the byte limit (UTF-8 bytes, not characters) is CODE_TOO_LARGE and never runs', async () => {
  const runs: Run[] = [];
  const tool = executeCodeTool(fakePool(runs), runtime(10), () => '/w');
  await tool.handler({ code: '1234567890' }, ctx);
  await assert.rejects(tool.handler({ code: 'é'.repeat(6) }, ctx), (e: unknown) => isGatewayError(e) && e.code === ErrorCode.CODE_TOO_LARGE && e.message === 'code is 12 bytes of UTF-8; execute_code accepts at most 10');
  assert.equal(runs.length, 1);
});

test('a broken resource policy refuses before the pool is asked', async () => {
  const runs: Run[] = [];
  const tool = executeCodeTool(fakePool(runs), runtime(100, { mode: 'failed', enforcement: 'none', reason: 'policy unreadable' }), () => '/w');
  await assert.rejects(tool.handler({ code: 'x' }, ctx), (e: unknown) => isGatewayError(e) && e.code === ErrorCode.RESOURCE_POLICY_INVALID && /execute_code refused: policy unreadable/.test(e.message));
  assert.deepEqual(runs, []);
});

test("the description names the limits and offers Hermes' web tools only when catalogued", () => {
  const plain = executeCodeTool(fakePool([]), runtime(4321), () => '/w').description;
  assert.match(plain, /from hermes_tools import terminal, read_file, write_file, search_files, patch`/);
  assert.match(plain, /4321 bytes of code/);
  assert.doesNotMatch(plain, /web_search/);
  const one = executeCodeTool(fakePool([]), runtime(1), () => '/w', (n) => n === 'web_search').description;
  assert.match(one, /patch, web_search`/);
  assert.match(one, /; web_search is Hermes' own, through its tool server/);
  const both = executeCodeTool(fakePool([]), runtime(1), () => '/w', () => true).description;
  assert.match(both, /; web_search and web_extract are Hermes' own/);
});
