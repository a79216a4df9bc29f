import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { packageRoot } from '../../../shared/package-root.js';
import {
  TOOL_CALL_VIEW_META,
  VIEW_EXTENSION_ID,
  VIEW_LISTING,
  VIEW_MIME_TYPE,
  VIEW_URI,
  VIEW_URI_META_KEY,
  viewContents,
  viewHtml,
  viewHtmlPath,
} from '../../../supervisor/http/app-view/resource.js';
import { ensureViewBuilt } from '../../helpers/view.js';

// The result view's resource: its names, listing, tool_call's _meta and the HTML read once. As MCP
// serves it (resources/list and resources/read in both eras) in resource-gateway.test.ts.

test("the extension's names the gateway writes out are ext-apps' own", () => {
  assert.deepEqual([VIEW_MIME_TYPE, VIEW_EXTENSION_ID, VIEW_URI_META_KEY], [RESOURCE_MIME_TYPE, EXTENSION_ID, RESOURCE_URI_META_KEY]);
});

test("tool_call's _meta names the view under the extension's key, the older flat key and the Apps SDK's", () => {
  assert.deepEqual(TOOL_CALL_VIEW_META, {
    ui: { resourceUri: 'ui://hermes-mcp-gateway/result-view.html' },
    'ui/resourceUri': 'ui://hermes-mcp-gateway/result-view.html',
    'openai/outputTemplate': 'ui://hermes-mcp-gateway/result-view.html',
    'openai/widgetAccessible': true,
  });
  assert.ok(Object.isFrozen(TOOL_CALL_VIEW_META));
});

test('the listing: the ui:// resource, its MIME type, a CSP allowing no domain and no host border', () => {
  assert.equal(VIEW_LISTING.uri, VIEW_URI);
  assert.equal(VIEW_LISTING.name, 'result-view');
  assert.equal(VIEW_LISTING.mimeType, 'text/html;profile=mcp-app');
  assert.deepEqual(VIEW_LISTING._meta.ui, { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: false });
  assert.deepEqual(VIEW_LISTING._meta['openai/widgetCSP'], { connect_domains: [], resource_domains: [] });
  assert.equal(VIEW_LISTING._meta['openai/widgetPrefersBorder'], false);
  assert.equal(viewHtmlPath(), join(packageRoot(), 'dist', 'view', 'result-view.html'));
});

test('a missing build says how to make it; once read, the HTML is kept for the life of the process', async () => {
  const absent = join(tmpdir(), `absent-${randomUUID()}.html`);
  assert.throws(() => viewHtml(absent), { message: 'the result view is not built (ENOENT): run npm run build' });
  await ensureViewBuilt();
  const built = readFileSync(viewHtmlPath(), 'utf8');
  const contents = viewContents();
  assert.deepEqual(contents, { uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, text: built, _meta: VIEW_LISTING._meta });
  assert.match(contents.text, /^<!doctype html>/i);
  assert.equal(viewHtml(absent), built, 'read once: a later path is not read again');
});
