import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/client';
import { connect, ERAS, rawPost, startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { ensureViewBuilt } from '../../helpers/view.js';

// The result view as MCP serves it (issue #26): one ui:// resource in resources/list and
// resources/read in both eras, named by tool_call's _meta, with a CSP that allows no domain; the
// catalog stays six tools and a tool_call result is what it was.

const URI = 'ui://hermes-mcp-gateway/result-view.html';
const MIME = 'text/html;profile=mcp-app';
const NO_DOMAINS = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

describe('the result view resource', () => {
  let gw: TestGateway;
  before(async () => {
    await ensureViewBuilt();
    gw = await startTestGateway();
  });
  after(async () => gw.close());

  test('modern era: server/discover advertises the MCP Apps extension and resources', async () => {
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } });
    const res = await rawPost(gw.mcpUrl, body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' });
    assert.equal(res.status, 200);
    const { result } = (await res.json()) as { result: { capabilities: { resources?: unknown; extensions?: Record<string, unknown> } } };
    assert.deepEqual(result.capabilities.extensions, { 'io.modelcontextprotocol/ui': {} });
    assert.deepEqual(result.capabilities.resources, { listChanged: false });
  });

  for (const era of ERAS) {
    test(`${era} era: the server declares resources and the MCP Apps extension`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const caps = client.getServerCapabilities() as Record<string, unknown> & { extensions?: Record<string, unknown> };
        assert.deepEqual(caps.resources, { listChanged: false });
        assert.deepEqual(caps.extensions, { 'io.modelcontextprotocol/ui': {} });
      } finally {
        await client.close();
      }
    });

    test(`${era} era: resources/list holds exactly the view, with its CSP in _meta.ui`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const { resources } = await client.listResources();
        assert.equal(resources.length, 1);
        const [view] = resources;
        assert.equal(view!.uri, URI);
        assert.equal(view!.mimeType, MIME);
        assert.deepEqual((view!._meta as { ui: { csp: unknown } }).ui.csp, NO_DOMAINS);
        // The card draws the view's one border: the host is asked for none, in both vocabularies.
        assert.equal((view!._meta as { ui: { prefersBorder?: unknown } }).ui.prefersBorder, false);
        assert.equal((view!._meta as Record<string, unknown>)['openai/widgetPrefersBorder'], false);
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(resourceTemplates, []);
      } finally {
        await client.close();
      }
    });

    test(`${era} era: resources/read returns the self-contained HTML; an unknown URI is not found`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const { contents } = await client.readResource({ uri: URI });
        assert.equal(contents.length, 1);
        const html = (contents[0] as { text: string }).text;
        assert.equal(contents[0]!.mimeType, MIME);
        // (booleans, not match(): a failure message would print the whole bundle)
        assert.ok(html.startsWith('<!doctype html>') && /<script>[^]+<\/script>/.test(html), 'one document with its script inline');
        // No external asset: nothing is loaded by URL (scripts, styles, fonts and images are inline).
        assert.ok(!/<(script|link|img|iframe)[^>]+(src|href)=/i.test(html), 'no element loads a URL');
        const css = /<style>([^]*?)<\/style>/.exec(html)?.[1] ?? '';
        assert.ok(!/@import|url\(/i.test(css), 'the styles load nothing');
        // The view builds DOM from text nodes only: no HTML parser is ever handed a string.
        assert.ok(!/\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/.test(html), 'no markup sink in the bundle');
        assert.deepEqual((contents[0]!._meta as { ui: { csp: unknown } }).ui.csp, NO_DOMAINS);
        await assert.rejects(client.readResource({ uri: 'ui://hermes-mcp-gateway/other.html' }), (e: unknown) => {
          assert.ok(e instanceof ProtocolError, String(e));
          assert.equal(e.code, -32602);
          return true;
        });
      } finally {
        await client.close();
      }
    });

    test(`${era} era: tool_call names the view; the other five tools carry no _meta; still six tools`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, 6);
        const toolCall = tools.find((t) => t.name === 'tool_call')!;
        const meta = toolCall._meta as Record<string, unknown> & { ui: { resourceUri: string } };
        assert.equal(meta.ui.resourceUri, URI);
        assert.equal(meta['ui/resourceUri'], URI);
        assert.equal(meta['openai/outputTemplate'], URI);
        for (const t of tools) if (t.name !== 'tool_call') assert.equal(t._meta, undefined, t.name);
      } finally {
        await client.close();
      }
    });

    test(`${era} era: a tool_call result carries nothing for the view (every client reads the same result)`, async () => {
      const client = await connect(gw.mcpUrl, era);
      try {
        const { result, data } = await viaBridge(client, 'session_open');
        assert.equal(typeof data.session_token, 'string');
        const meta = (result as { _meta?: Record<string, unknown> })._meta ?? {};
        assert.deepEqual(Object.keys(meta).filter((k) => k.startsWith('ui') || k.startsWith('openai/')), []);
      } finally {
        await client.close();
      }
    });
  }
});
