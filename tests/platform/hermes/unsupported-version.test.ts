import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startTestGateway } from '../../helpers/gateway.js';
import { checkout, interpreter } from '../../helpers/hermes-checkout.js';
import { tempDirs } from '../../helpers/temp.js';

// A gateway fronting a Hermes Agent outside the supported versions says so on /readyz, with what to do.

const temp = tempDirs();
after(() => temp.removeAll());

test('a version outside the supported range: /readyz 503 with the hermes component unsupported and what to do', async () => {
  const home = temp.make('hmcp-locate-');
  const tree = checkout(join(home, 'hermes-agent'), { stamp: '0.18.4' });
  interpreter(join(tree, 'venv', 'bin', 'python'));
  const gw = await startTestGateway({ home: realpathSync(home), env: { HERMES_MCP_ROOTS: home, HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider,startup_files,session_db' } });
  try {
    const res = await fetch(`${gw.url}/readyz`);
    const body = (await res.json()) as { reasons: Array<{ component: string; reason: string; action: string }>; components: Record<string, { ready: boolean; status: string }> };
    assert.equal(res.status, 503);
    assert.deepEqual(body.components.hermes && { ready: body.components.hermes.ready, status: body.components.hermes.status }, { ready: false, status: 'unsupported' });
    const reason = body.reasons.find((r) => r.component === 'hermes');
    assert.equal(reason?.reason, 'Hermes Agent 0.18.4 is outside the versions this gateway supports (>=0.19.0,<0.24)');
    assert.match(reason?.action ?? '', /hermes update/);
  } finally {
    await gw.close();
  }
});
