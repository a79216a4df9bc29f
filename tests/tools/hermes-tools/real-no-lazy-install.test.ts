import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viaBridge } from '../../helpers/gateway.js';
import { realToolsSuite } from './fixture.js';

// Hermes installs a backend's missing Python packages on first use (0.19.0 tools/lazy_deps.py
// ensure(), 0.22.2 pm/install.py: a pip install into its venv from PyPI), unless lazy installs are
// off. Through the gateway a tool call is a remote agent's request: it must not make the host
// download and install code. The gateway starts the tool server with HERMES_DISABLE_LAZY_INSTALLS=1,
// so a backend whose packages are missing (Exa here: exa-py is not in the pinned install) answers
// with Hermes' own "unavailable" error and nothing is fetched (the egress trap stays empty). Hermes
// 0.22.2 would then retry the search through its keyless free tier (mcp.exa.ai and others,
// tools/web_tools_rescue.py); the gateway's managed scope for its tool server turns that off.


const suite = realToolsSuite('hmcp-real-lazy-', {
  config: { web: { backend: 'exa' } },
  dotenv: { EXA_API_KEY: 'exa-test-key-not-real' },
  env: { HERMES_MCP_OPTIONAL_COMPONENTS: 'web_provider' },
  });

test("a web backend whose packages are missing is not pip-installed on a remote agent's call", async () => {
  const r = await viaBridge(suite.client, 'web_search', { query: 'hermes agent', limit: 1 });
  const text = JSON.stringify(r.data);
  assert.match(text, /exa/i, `Hermes' own answer names the backend: ${text.slice(0, 400)}`);
  assert.deepEqual(suite.real.egress, [], 'nothing was fetched to install the backend');
});
