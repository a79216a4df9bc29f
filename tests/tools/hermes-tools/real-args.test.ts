import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gte } from '@renovatebot/pep440';
import { viaBridge } from '../../helpers/gateway.js';
import { hermes } from '../../helpers/hermes.js';
import { realToolsSuite } from './fixture.js';

// The tools of Hermes' own tool server, over MCP, take arguments sent as strings as Hermes'
// dispatch does (supervisor/core/hermes-args.ts) instead of the gateway's validation refusing them
// first: web_search's "limit": "2" reaches Hermes as 2 (Firecrawl's stand-in sees the limit Hermes
// sends for 2), a bare URL for web_extract's `urls` is a one-element list; "two" is INVALID_ARGUMENTS.


const suite = realToolsSuite('hmcp-real-args-', {}, { webReady: true });

test('web_search "limit": "2" and web_extract with a bare URL are answered as Hermes answers them; "limit": "two" is INVALID_ARGUMENTS', async () => {
  const r = await viaBridge(suite.client, 'web_search', { query: 'gateways', limit: '2' });
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  assert.equal((r.data.data as { web: unknown[] }).web.length, 2);
  // Hermes 0.22.2 asks Firecrawl for 10 whatever the limit (as real-calls shows for the number 2).
  assert.equal(suite.real.firecrawl.requests.at(-1)?.body?.limit, gte(hermes().version, '0.22.2') ? 10 : 2);
  const page = await viaBridge(suite.client, 'web_extract', { urls: 'http://localhost/docs' });
  const results = page.data.results as Array<{ url: string; title: string }>;
  assert.equal(results.length, 1, JSON.stringify(page.data));
  assert.equal(results[0]!.title, 'Stand-in page');
  const sent = suite.real.firecrawl.requests.length;
  const bad = await viaBridge(suite.client, 'web_search', { query: 'gateways', limit: 'two' });
  assert.equal(bad.data.error, 'INVALID_ARGUMENTS');
  assert.equal(suite.real.firecrawl.requests.length, sent, 'nothing reached Hermes');
});
