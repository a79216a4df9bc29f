import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { freePort } from '../../helpers/nginx.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { startRealTools, type RealTools } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// A Firecrawl that refuses, or is not there: Hermes' real tool server still lists and answers
// web_search and web_extract, with the provider's failure inside a normal result (wrapped by
// FastMCP as {"result": "<json>"}). /readyz.web_provider is then not ready, its reason Hermes' own
// nested error for each tool; the tool server itself stays ready.

const temp = tempDirs();
const running: RealTools[] = [];

after(async () => {
  for (const r of running) await r.close();
  temp.removeAll();
});

async function settled(real: RealTools) {
  return waitFor(async () => {
    const now = await toolServerReadiness(real.gw.url);
    return now.web.status !== 'starting' ? now : undefined;
  }, 60_000, 'the web smoke calls');
}

test('a Firecrawl answering 401 keeps web_provider not ready, with the provider error from inside the result', async () => {
  const real = await startRealTools(temp.make('hmcp-real-web-401-'), { firecrawlFails: { status: 401, error: 'Invalid token (stand-in)' } });
  running.push(real);
  const r = await settled(real);
  assert.equal(r.hermesTools.ready, true, 'the tool server itself is up');
  assert.equal(r.web.ready, false);
  assert.equal(r.web.status, 'error');
  assert.match(r.web.reason ?? '', /web_search: Firecrawl search failed: Unauthorized: Failed to search\. Invalid token \(stand-in\)/);
  assert.match(r.web.reason ?? '', /web_extract: Unauthorized: Failed to scrape\. Invalid token \(stand-in\)/);
  assert.ok(real.firecrawl.requests.some((q) => q.path === '/v2/search') && real.firecrawl.requests.some((q) => q.path === '/v2/scrape'), 'both reached Firecrawl');
  assert.deepEqual(real.egress, []);
});

test('a Firecrawl that is not running keeps web_provider not ready, naming the refused connection', async () => {
  const real = await startRealTools(temp.make('hmcp-real-web-down-'), { firecrawlUrl: `http://127.0.0.1:${await freePort()}` });
  running.push(real);
  const r = await settled(real);
  assert.equal(r.hermesTools.ready, true);
  assert.equal(r.web.ready, false);
  assert.match(r.web.reason ?? '', /web_search: Firecrawl search failed/);
  assert.match(r.web.reason ?? '', /web_extract: .*Connection refused/);
  assert.deepEqual(real.firecrawl.requests, [], 'the stand-in was not the one asked');
  assert.deepEqual(real.egress, []);
});
