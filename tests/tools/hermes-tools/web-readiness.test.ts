import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HermesToolResult } from '../../../shared/worker-protocol/hermes-tools.js';
import { providerError, webProbe } from '../../../supervisor/tools/hermes-tools/web-readiness.js';

// What makes a web smoke call a failing provider (web-readiness.ts providerError), on answers in
// the tool server's shapes (Hermes' JSON string in a text block and in structuredContent's
// `result`). The keyless-rescue answers are stand-ins: Hermes 0.22 produces them only when a free
// third-party service answers over the internet (tools/web_tools_rescue.py _rescue_search,
// _rescue_extract), which no test here reaches; their shape is that code's.

function answer(value: unknown): HermesToolResult {
  const text = JSON.stringify(value);
  return { content: [{ type: 'text', text }], structuredContent: { result: text } };
}

test("a working backend's answers are no provider error", () => {
  assert.equal(providerError(answer({ success: true, data: { web: [{ url: 'https://a.example/', title: 'A', description: 'a' }] } })), undefined);
  assert.equal(providerError(answer({ results: [{ url: 'http://localhost/p', title: 'P', content: 'page', error: null, metadata: { sourceURL: 'http://localhost/p' } }] })), undefined);
});

test('errors inside the answer are provider errors: success false, a nested error, an error result, an answer that is not JSON', () => {
  assert.equal(providerError(answer({ success: false, error: 'Firecrawl search failed: Unauthorized' })), 'Firecrawl search failed: Unauthorized');
  assert.equal(providerError(answer({ results: [{ url: 'u', error: 'Connection refused' }] })), 'Connection refused');
  assert.equal(providerError(answer({ success: false })), 'the provider answered success: false');
  assert.match(providerError({ content: [{ type: 'text', text: 'Error executing tool web_search' }], isError: true })!, /^the tool answered with an error: Error executing tool web_search/);
  assert.match(providerError({ content: [{ type: 'text', text: 'plain words' }] })!, /^the answer is not a Hermes JSON result: plain words/);
});

test("an answer Hermes' keyless free tier served instead of the configured backend is a provider failure, with Hermes' reason", () => {
  const backendError = "Configured backend 'firecrawl' failed this call (Firecrawl search failed: Unauthorized); result served by the keyless free tier. The next call will use 'firecrawl' again.";
  const search = answer({ success: true, data: { web: [{ url: 'https://a.example/', title: 'A', description: 'a' }], rescued_from: 'firecrawl', backend_error: backendError } });
  assert.equal(providerError(search), `the configured backend firecrawl failed; Hermes served the answer from its keyless free tier instead: ${backendError}`);
  const extract = answer({ results: [{ url: 'http://localhost/p', title: 'P', content: 'page', error: null, metadata: { rescued_from: 'firecrawl', backend_error: 'Unauthorized: Failed to scrape.' } }] });
  assert.equal(providerError(extract), 'the configured backend firecrawl failed; Hermes served the answer from its keyless free tier instead: Unauthorized: Failed to scrape.');
  assert.equal(providerError(answer({ results: [{ url: 'u', content: 'c', metadata: { rescued_from: 'exa' } }] })), 'the configured backend exa failed; Hermes served the answer from its keyless free tier instead');
  const probe = webProbe([{ tool: 'web_search', ok: false, reason: providerError(search)! }, { tool: 'web_extract', ok: true }]);
  assert.equal(probe.ready, false);
  assert.match(probe.reason ?? '', /^web_search: the configured backend firecrawl failed; Hermes served the answer from its keyless free tier instead/);
});
