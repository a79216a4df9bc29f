import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HermesToolsStatus } from '../../../shared/worker-protocol/hermes-tools.js';
import type { ToolServerStartup } from '../../../supervisor/tools/hermes-tools/listing.js';
import { toolServerProbe, webProviderProbe } from '../../../supervisor/tools/hermes-tools/probes.js';
import type { HermesToolsWorker } from '../../../supervisor/tools/hermes-tools/tools.js';

// /readyz hermes_tools and web_provider (probes.ts), on the startup's findings and a stand-in
// worker answering the status request.

type StatusReply = { type: 'status-result'; id: string; status: HermesToolsStatus } | { failure: { code: 'HERMES_TOOLS_TIMEOUT'; message: string } };

function worker(reply: StatusReply) {
  const asked: unknown[] = [];
  const stand = {
    async request(body: unknown, boundMs: number, mode: string) {
      asked.push([body, boundMs, mode]);
      return reply;
    },
  };
  return { worker: stand as unknown as HermesToolsWorker, asked };
}
const status = (s: Partial<HermesToolsStatus>): StatusReply => ({ type: 'status-result', id: '1', status: { state: 'up', restarts: 0, failures: 0, ...s } });
const listed = (missing: string[] = [], extra: Partial<Extract<ToolServerStartup, { kind: 'listed' }>> = {}): ToolServerStartup => ({
  kind: 'listed',
  listed: ['web_search', 'web_extract', 'vision_analyze'],
  served: ['web_search', 'web_extract', 'vision_analyze'],
  missing,
  unusable: {},
  ...extra,
});
const noOverlay = { warnings: [] };

describe('toolServerProbe', () => {
  test('pending: starting, without asking the worker', async () => {
    const w = worker(status({}));
    assert.deepEqual(await toolServerProbe({ kind: 'pending' }, noOverlay, w.worker), { ready: false, status: 'starting', reason: "Hermes' tool server has not listed its tools yet" });
    assert.equal(w.asked.length, 0);
  });

  test('unavailable: its status and reason, and what to do for each', async () => {
    const notInstalled = await toolServerProbe({ kind: 'unavailable', status: 'not_installed', reason: 'no python' }, noOverlay, worker(status({})).worker);
    assert.deepEqual([notInstalled.ready, notInstalled.status, notInstalled.reason], [false, 'not_installed', 'no python']);
    assert.match(notInstalled.action ?? '', /^install Hermes .*HERMES_MCP_OPTIONAL_COMPONENTS=hermes_tools,web_provider/);
    const error = await toolServerProbe({ kind: 'unavailable', status: 'error', reason: 'crashed' }, noOverlay, worker(status({})).worker);
    assert.match(error.action ?? '', /^fix the tool server failure named in the reason/);
  });

  test('up and answering a ping: ok with the listing, the overlay and the worker facts; the status asked within 3 s', async () => {
    const w = worker(status({ answersPing: true, restarts: 2, lastFailure: 'exit 1' }));
    const startup = listed([], { server: { name: 'hermes-tools', version: '1.0' }, unusable: { image_generate: 'bad schema' } });
    assert.deepEqual(await toolServerProbe(startup, { dir: '/s/o', admin: '/etc/hermes', warnings: ['w'] }, w.worker), {
      ready: true,
      status: 'ok',
      details: {
        tools: ['web_search', 'web_extract', 'vision_analyze'],
        missing: [],
        unusable: { image_generate: 'bad schema' },
        server: { name: 'hermes-tools', version: '1.0' },
        managed_dir: '/s/o',
        admin_managed_dir: '/etc/hermes',
        managed_warnings: ['w'],
        state: 'up',
        restarts: 2,
        last_failure: 'exit 1',
      },
    });
    assert.deepEqual(w.asked, [[{ type: 'status', pingTimeoutMs: 2000 }, 3000, 'spare-busy']]);
  });

  test('busy on a call counts as up; tools not offered make it degraded, still ready', async () => {
    const r = await toolServerProbe(listed(['video_analyze']), noOverlay, worker(status({ busy: { tool: 'web_extract', forMs: 1500 } })).worker);
    assert.equal(r.ready, true);
    assert.equal(r.status, 'degraded');
    assert.equal(r.reason, "Hermes' tool server does not offer video_analyze");
    assert.deepEqual((r.details as Record<string, unknown>).busy, { tool: 'web_extract', for_ms: 1500 });
  });

  test('up without a ping answer: error; restarting: its state, the last failure and the next attempt rounded up to seconds', async () => {
    const silent = await toolServerProbe(listed(), noOverlay, worker(status({ answersPing: false })).worker);
    assert.deepEqual([silent.ready, silent.status, silent.reason], [false, 'error', "Hermes' tool server did not answer a ping within 2000 ms"]);
    const restarting = await toolServerProbe(listed(), noOverlay, worker(status({ state: 'restarting', lastFailure: 'exit 3', nextAttemptInMs: 1200 })).worker);
    assert.deepEqual([restarting.ready, restarting.status, restarting.reason, restarting.action], [false, 'restarting', "Hermes' tool server is restarting after exit 3; next attempt in 2 s", 'it is restarted with backoff; see last_failure']);
    assert.equal((restarting.details as Record<string, unknown>).next_attempt_in_ms, 1200);
    const starting = await toolServerProbe(listed(), noOverlay, worker(status({ state: 'starting' })).worker);
    assert.equal(starting.reason, "Hermes' tool server is starting");
  });

  test("the worker's own failure: error with its message", async () => {
    const r = await toolServerProbe(listed(), noOverlay, worker({ failure: { code: 'HERMES_TOOLS_TIMEOUT', message: 'no answer' } }).worker);
    assert.deepEqual([r.ready, r.status, r.reason], [false, 'error', 'no answer']);
    assert.deepEqual(r.details, { tools: ['web_search', 'web_extract', 'vision_analyze'], missing: [] });
  });
});

test('webProviderProbe: pending, no tool server, web tools not offered, smoke calls running, then their verdict', () => {
  assert.equal(webProviderProbe({ kind: 'pending' }, undefined).status, 'starting');
  assert.deepEqual(webProviderProbe({ kind: 'unavailable', status: 'error', reason: 'crashed' }, undefined), {
    ready: false,
    status: 'unavailable',
    reason: "Hermes' tool server is not running (crashed) (see hermes_tools)",
    action: 'see hermes_tools',
  });
  const noWeb = webProviderProbe(listed([], { served: ['vision_analyze'] }), undefined);
  assert.deepEqual([noWeb.status, noWeb.reason], ['missing', "Hermes' tool server does not offer web_search and web_extract: no web backend is selected"]);
  assert.deepEqual(webProviderProbe(listed(), undefined), { ready: false, status: 'starting', reason: 'the web_search and web_extract smoke calls are running' });
  assert.deepEqual(webProviderProbe(listed(), [{ tool: 'web_search', ok: true }, { tool: 'web_extract', ok: true }]), { ready: true, status: 'ok', details: { web_search: 'ok', web_extract: 'ok' } });
  assert.equal(webProviderProbe(listed(), [{ tool: 'web_search', ok: true }, { tool: 'web_extract', ok: false, reason: 'quota' }]).reason, 'web_extract: quota');
});
