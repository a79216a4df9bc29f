import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { SMOKE_PAGE, startRealTools, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// /readyz.web_provider through Hermes' real code path: the real tool server's web_search and
// web_extract, its Firecrawl backend (firecrawl-py) against the local Firecrawl stand-in. The smoke
// calls reach Firecrawl's /v2/search and /v2/scrape (the page HERMES_MCP_WEB_SMOKE_URL names), and
// Hermes' answers (FastMCP's {"result": "<json>"} around Hermes' JSON) read as a working provider.

const temp = tempDirs();
let real: RealTools;

before(async () => {
  real = await startRealTools(temp.make('hmcp-real-web-'));
});

after(async () => {
  await real?.close();
  temp.removeAll();
});

test("web_provider is ready once Hermes' Firecrawl backend answered both smoke calls", async () => {
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(real.gw.url);
    return now.web.status !== 'starting' ? now : undefined;
  }, 60_000, 'the web smoke calls');
  assert.equal(r.web.ready, true, JSON.stringify(r.web));
  assert.equal(r.web.status, 'ok');
  assert.deepEqual(r.web.details, { web_search: 'ok', web_extract: 'ok' });
  const search = real.firecrawl.requests.filter((q) => q.path === '/v2/search');
  const scrape = real.firecrawl.requests.filter((q) => q.path === '/v2/scrape');
  assert.equal(search.length, 1, 'one search');
  assert.equal(search[0]!.body?.query, 'Nous Research Hermes Agent');
  assert.deepEqual(scrape.map((q) => q.body?.url), [SMOKE_PAGE]);
  assert.deepEqual(real.egress, [], 'nothing went out');
});
