import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isGatewayError } from '../../../shared/errors.js';
import type { GraphCallResult } from '../../../shared/worker-protocol/graph.js';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { builtinDefinition } from '../../../supervisor/tools/graph/schema.js';
import { graphTool } from '../../../supervisor/tools/graph/tool.js';
import type { GraphWorker } from '../../../supervisor/tools/graph/worker.js';
import { tempDirs } from '../../helpers/temp.js';

// inspect_code_graph's handler (tool.ts) with a stand-in worker: cwd checked and resolved first,
// the rest passed on, the upstream's answer passed through, a failure as its GRAPH_* code.

const temp = tempDirs();
after(() => temp.removeAll());
const ctx: CallContext = { owner: { id: 'request:t', kind: 'request' }, signal: new AbortController().signal, callId: 't', era: 'modern', callNested: () => Promise.reject(new Error('no nested calls here')) };

type CallReply = { type: 'call-result'; id: string; result?: GraphCallResult; failure?: { code: 'GRAPH_TIMEOUT' | 'GRAPH_UPSTREAM_FAILED'; message: string } };

function world(reply: CallReply) {
  const root = temp.make('hmcp-graph-tool-');
  mkdirSync(join(root, 'proj'));
  writeFileSync(join(root, 'file.ts'), 'x');
  const asked: unknown[] = [];
  const worker = {
    async request(body: unknown, boundMs: number) {
      asked.push([body, boundMs]);
      return reply;
    },
  } as unknown as GraphWorker;
  return { root, asked, tool: graphTool(builtinDefinition(), { worker, roots: [root], boundMs: 1234 }) };
}

test('the call: the real project root as cwd, the other arguments unchanged, the bound; structured content and blocks passed through', async () => {
  const w = world({ type: 'call-result', id: '1', result: { content: [{ type: 'text', text: 'hi' }], structuredContent: { nodes: 3 } } });
  assert.equal(w.tool.name, 'inspect_code_graph');
  assert.equal(w.tool.annotations.readOnlyHint, true);
  const outcome = await w.tool.handler({ cwd: join(w.root, 'proj', '..', 'proj'), question: 'q', request: { type: 'tour' } }, ctx);
  assert.deepEqual(outcome, { content: [{ type: 'text', text: 'hi' }], structured: { nodes: 3 } });
  assert.deepEqual(w.asked, [[{ type: 'call', cwd: join(w.root, 'proj'), arguments: { question: 'q', request: { type: 'tour' } } }, 1234]]);
});

test('structured content that is not an object travels as JSON text; an error result stays one', async () => {
  const w = world({ type: 'call-result', id: '1', result: { content: [], structuredContent: [1, 2], isError: true } });
  assert.deepEqual(await w.tool.handler({ cwd: w.root }, ctx), { content: [{ type: 'text', text: '[1,2]' }], isError: true });
});

test('refusals before the worker: no cwd, a file, outside the roots; failures after it: their code, the cwd in details', async () => {
  const w = world({ type: 'call-result', id: '1', failure: { code: 'GRAPH_TIMEOUT', message: 'too slow' } });
  const code = (c: string) => (e: unknown) => isGatewayError(e) && e.code === c;
  await assert.rejects(w.tool.handler({ question: 'q' }, ctx), code('INVALID_ARGUMENTS'));
  await assert.rejects(w.tool.handler({ cwd: '' }, ctx), code('INVALID_ARGUMENTS'));
  await assert.rejects(w.tool.handler({ cwd: join(w.root, 'file.ts') }, ctx), code('INVALID_PATH'));
  await assert.rejects(w.tool.handler({ cwd: '/' }, ctx), code('PATH_OUTSIDE_ROOTS'));
  assert.equal(w.asked.length, 0);
  await assert.rejects(w.tool.handler({ cwd: w.root }, ctx), (e) => code('GRAPH_TIMEOUT')(e) && (e as { message: string }).message === 'too slow' && (e as { details?: Record<string, unknown> }).details?.cwd === w.root);
  const empty = world({ type: 'call-result', id: '1' });
  await assert.rejects(empty.tool.handler({ cwd: empty.root }, ctx), (e) => code('GRAPH_UPSTREAM_FAILED')(e) && /answered without a result/.test((e as Error).message));
});
