import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { optionalComponents, startTestGateway } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { pathWithoutServers, pathWithServers } from './fixtures.js';

// /readyz `lsp`: not_configured without a trusted root, missing when no configured server is on
// PATH (the action gives the install commands; nothing is installed), ok otherwise. Required
// unless HERMES_MCP_OPTIONAL_COMPONENTS names it, like memory. No language server starts for it.

interface Readyz {
  reasons?: Array<{ component: string; reason: string; action: string }>;
  components: Record<string, { ready: boolean; status: string; reason?: string; action?: string; required: boolean }>;
}

async function lspReadiness(env: Record<string, string>): Promise<{ code: number; body: Readyz }> {
  const dirs = tempDirs();
  const root = realpathSync(dirs.make('hmcp-lsp-readyz-'));
  const gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('lsp'), ...env, ...(env.HERMES_MCP_LSP_TRUSTED_ROOTS === 'ROOT' ? { HERMES_MCP_LSP_TRUSTED_ROOTS: root } : {}) } });
  try {
    const res = await fetch(`${gw.url}/readyz`);
    return { code: res.status, body: (await res.json()) as Readyz };
  } finally {
    await gw.close();
    dirs.removeAll();
  }
}

test('no trusted root: not_configured, 503 while required, naming the variable and the way out', async () => {
  const { code, body } = await lspReadiness({ PATH: pathWithServers() });
  assert.equal(code, 503);
  const lsp = body.components.lsp!;
  assert.deepEqual([lsp.ready, lsp.status, lsp.required], [false, 'not_configured', true]);
  const reason = body.reasons?.find((r) => r.component === 'lsp');
  assert.match(reason!.reason, /HERMES_MCP_LSP_TRUSTED_ROOTS/);
  assert.match(reason!.action, /HERMES_MCP_OPTIONAL_COMPONENTS=lsp/);
});

test('trusted, but no server on PATH: missing, with the install commands', async () => {
  const { code, body } = await lspReadiness({ PATH: pathWithoutServers(), HERMES_MCP_LSP_TRUSTED_ROOTS: 'ROOT' });
  assert.equal(code, 503);
  const lsp = body.components.lsp!;
  assert.equal(lsp.status, 'missing');
  assert.match(lsp.action!, /npm install -g typescript-language-server@5 typescript@5`/);
  assert.match(lsp.action!, /npm install -g pyright/);
});

test('trusted with both servers installed: ready (200)', async () => {
  const { code, body } = await lspReadiness({ PATH: pathWithServers(), HERMES_MCP_LSP_TRUSTED_ROOTS: 'ROOT' });
  assert.equal(body.components.lsp!.status, 'ok', JSON.stringify(body.components.lsp));
  assert.equal(code, 200, JSON.stringify(body.reasons));
});

test('HERMES_MCP_OPTIONAL_COMPONENTS=lsp keeps an unconfigured LSP from failing readiness', async () => {
  const { code, body } = await lspReadiness({ PATH: pathWithServers(), HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() });
  assert.equal(body.components.lsp!.required, false);
  assert.equal(code, 200, JSON.stringify(body.reasons));
});
