import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../shared/package-root.js';

// The result view: one MCP App (the io.modelcontextprotocol/ui extension) that hosts rendering MCP
// Apps show under a tool_call result. It is a single self-contained HTML document built from view/
// into dist/view/ by `npm run build`; the gateway only names it (tool_call's _meta), lists it and
// reads it back. It runs in the host's sandboxed iframe and reaches the gateway only through the
// host's tool-call bridge, so its calls are tools/call requests like a model's.

export const VIEW_URI = 'ui://hermes-mcp-gateway/result-view.html';
export const VIEW_NAME = 'result-view';
// The MCP Apps extension's names (@modelcontextprotocol/ext-apps/server exports them as
// RESOURCE_MIME_TYPE, EXTENSION_ID and RESOURCE_URI_META_KEY; tests/http/app-view/resource.test.ts
// checks these are equal). Written out here because importing that module at startup costs an idle
// gateway about 2 MB for three strings.
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
export const VIEW_EXTENSION_ID = 'io.modelcontextprotocol/ui';
export const VIEW_URI_META_KEY = 'ui/resourceUri';

/** Where `npm run build` writes the bundled view (scripts/build-view.ts). */
export function viewHtmlPath(): string {
  return join(packageRoot(), 'dist', 'view', 'result-view.html');
}

/**
 * tool_call's `_meta` naming the view: the extension's `ui.resourceUri`, its older flat key, and
 * ChatGPT's Apps SDK aliases (the template, and permission for the view to call tools back).
 */
export const TOOL_CALL_VIEW_META: Readonly<Record<string, unknown>> = Object.freeze({
  ui: { resourceUri: VIEW_URI },
  [VIEW_URI_META_KEY]: VIEW_URI,
  'openai/outputTemplate': VIEW_URI,
  'openai/widgetAccessible': true,
});

/**
 * The resource's `_meta.ui`: a CSP with no allowed domain at all (everything the view needs is
 * inline; images are data: URLs from the result), and no border from the host. The card draws its
 * own, one border only: its colour says how the call ended (a failure's or an error's is red),
 * which a host's border cannot, and a result with no card leaves the view at zero height, where a
 * host's border would still draw an empty frame.
 */
const RESOURCE_META = Object.freeze({
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: false },
  'openai/widgetCSP': { connect_domains: [], resource_domains: [] },
  'openai/widgetPrefersBorder': false,
  'openai/widgetDescription': 'Shows a tool_call result as a card: job progress, terminal output, diffs, matches, screenshots, errors.',
});

export const VIEW_LISTING = Object.freeze({
  uri: VIEW_URI,
  name: VIEW_NAME,
  title: 'Hermes MCP gateway result view',
  description: 'The MCP App rendering tool_call results (jobs, terminal output, diffs, matches, browser screenshots, errors).',
  mimeType: VIEW_MIME_TYPE,
  _meta: RESOURCE_META,
});

let cachedHtml: string | undefined;

/** The view's HTML, read once; a missing build says how to make it. */
export function viewHtml(path = viewHtmlPath()): string {
  if (cachedHtml !== undefined) return cachedHtml;
  try {
    cachedHtml = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`the result view is not built (${(error as NodeJS.ErrnoException).code ?? String(error)}): run npm run build`);
  }
  return cachedHtml;
}

export function viewContents(): { uri: string; mimeType: string; text: string; _meta: typeof RESOURCE_META } {
  return { uri: VIEW_URI, mimeType: VIEW_MIME_TYPE, text: viewHtml(), _meta: RESOURCE_META };
}
