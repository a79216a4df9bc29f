import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gte } from '@renovatebot/pep440';
import { STANDIN_SECRETS } from '../../fixtures/firecrawl-standin.js';
import { viaBridge } from '../../helpers/gateway.js';
import { hermes } from '../../helpers/hermes.js';
import { realToolsSuite } from './fixture.js';

// web_search and web_extract through tool_call and through execute_code's hermes_tools, all on
// Hermes' real tool server and its Firecrawl backend (the stand-in): the structured result is
// Hermes' JSON (out of FastMCP's {"result": ...} wrapper); arguments are checked against the
// schema the tool server listed; a secret in a page is redacted by the gateway (Hermes' tool server
// returns it as the page had it, HERMES_REDACT_SECRETS notwithstanding).

const MAX_OUTPUT = 20_000;

const suite = realToolsSuite('hmcp-real-calls-', { limits: { maxOutputChars: MAX_OUTPUT } }, { webReady: true });

test("web_search answers Hermes' own result object, from Firecrawl's /v2/search", async () => {
  const r = await viaBridge(suite.client, 'web_search', { query: 'gateways', limit: 2 });
  assert.equal(r.isError, false);
  assert.equal(r.data.success, true, JSON.stringify(r.data));
  const web = (r.data.data as { web: Array<{ url: string; title: string; description: string }> }).web;
  assert.deepEqual(web.map((w) => [w.url, w.title, w.description]), [
    ['https://results.example/1', 'Result 1 for gateways', 'About gateways.'],
    ['https://results.example/2', 'Result 2 for gateways', 'About gateways.'],
  ]);
  assert.equal('result' in r.data, false, "not FastMCP's wrapper");
  assert.deepEqual(suite.real.firecrawl.requests.at(-1)?.body?.query, 'gateways');
  // 0.22.2 asks the provider for a bucketed count and keeps the caller's (tools/web_result_cache.py bucket_limit).
  assert.equal(suite.real.firecrawl.requests.at(-1)?.body?.limit, gte(hermes().version, '0.22.2') ? 10 : 2);
});

test('web_extract answers the page Firecrawl scraped', async () => {
  const r = await viaBridge(suite.client, 'web_extract', { urls: ['http://localhost/docs'] });
  const results = r.data.results as Array<{ url: string; title: string; content: string; error: unknown }>;
  assert.equal(results.length, 1, JSON.stringify(r.data));
  assert.equal(results[0]!.title, 'Stand-in page');
  assert.match(results[0]!.content, /The page at http:\/\/localhost\/docs\./);
  assert.equal(results[0]!.error, null);
});

test('a secret in an upstream page is redacted by the gateway', async () => {
  const r = await viaBridge(suite.client, 'web_extract', { urls: ['http://localhost/secret'] });
  const text = JSON.stringify(r.result);
  assert.match(text, /Leaked: GITHUB_TOKEN=/, 'the page came through');
  for (const secret of Object.values(STANDIN_SECRETS)) assert.equal(text.includes(secret), false, `${secret.slice(0, 6)}… left in ${text.slice(0, 400)}`);
  const search = JSON.stringify((await viaBridge(suite.client, 'web_search', { query: 'secret', limit: 1 })).result);
  for (const secret of Object.values(STANDIN_SECRETS)) assert.equal(search.includes(secret), false);
  assert.equal(suite.real.gw.rawLog().includes(STANDIN_SECRETS.github), false, 'nor in the log');
});

test("a page longer than the gateway's output cap is capped with a truncation receipt", async () => {
  const r = await viaBridge(suite.client, 'web_extract', { urls: ['http://localhost/long:100000'], char_limit: 200_000 });
  assert.equal(r.data.truncated, true, JSON.stringify(r.data).slice(0, 300));
  const chars = r.result.content.reduce((n, b) => n + (b.text?.length ?? 0), 0);
  assert.ok(chars <= MAX_OUTPUT, `${chars} characters`);
});

test("arguments are checked against the tool server's listed schema before anything is sent", async () => {
  const before = suite.real.firecrawl.requests.length;
  const r = await viaBridge(suite.client, 'web_search', { limit: 1 });
  assert.equal(r.data.error, 'INVALID_ARGUMENTS', JSON.stringify(r.data));
  assert.equal(suite.real.firecrawl.requests.length, before);
});

test("execute_code's hermes_tools.web_search and web_extract reach the same real tool server", async () => {
  const code = [
    'from hermes_tools import web_search, web_extract',
    'print(web_search("from a script", limit=1)["data"]["web"][0]["title"])',
    'print(web_extract(["http://localhost/from-script"])["results"][0]["content"].splitlines()[-1])',
  ].join('\n');
  const r = await viaBridge(suite.client, 'execute_code', { code });
  assert.equal(r.data.status, 'success', String(r.data.output));
  assert.equal(String(r.data.output), 'Result 1 for from a script\nThe page at http://localhost/from-script.\n');
  const paths = suite.real.firecrawl.requests.slice(-2).map((q) => [q.path, q.body?.query ?? q.body?.url]);
  assert.deepEqual(paths, [['/v2/search', 'from a script'], ['/v2/scrape', 'http://localhost/from-script']]);
  assert.deepEqual(suite.real.egress, []);
});
