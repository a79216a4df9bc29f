import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gte } from '@renovatebot/pep440';
import { TOOL_SERVER_TOOLS } from '../../../supervisor/tools/hermes-tools/index.js';
import { viaBridge } from '../../helpers/gateway.js';
import { pngImage, toolServerReadiness } from '../../helpers/hermes-tools.js';
import { hermes } from '../../helpers/hermes.js';
import { realMediaSuite } from '../../helpers/real-hermes-tools.js';
import { waitFor } from '../../helpers/wait.js';

// Hermes' tool search against the gateway's tool server. Hermes replaces every deferrable tool (in
// 0.22.2 built-in tools too, since upstream's PR #97979; in 0.19.0 only MCP and plugin tools) by
// its tool_search/tool_describe/tool_call bridge (tools/tool_search.py), which its MCP tool server
// does not expose: a deferred tool vanishes from its tools/list. Here the
// user's config.yaml turns tool search on and defers all four tools the gateway takes from it, and
// names a main model without a context length (whose lookup goes to the internet); the
// administrator's managed scope (HERMES_MANAGED_DIR in the gateway's environment) pins tool search
// on as well, and pins the web backend to Firecrawl over the user's Exa. The gateway's managed
// scope for the tool server keeps the administrator's pins but turns tool search off: all four
// are catalogued and answer, the administrator's backend serves the web, nothing leaves the host,
// and neither config.yaml is touched. Without the gateway's scope (the tool server run directly
// with the administrator's), the newest Hermes lists none of the four.

const DEFERRED = ['image_generate', 'web_search', 'vision_analyze', 'web_extract'];
const IMAGE = pngImage(4, 4);
const ADMIN_CONFIG = 'tools:\n  tool_search:\n    enabled: on\nweb:\n  backend: firecrawl\n';
const ADMIN_DOTENV = 'ADMIN_POLICY_NOTE=kept\n';
let admin: string;
let userConfig: string;

const s = realMediaSuite('hmcp-real-tool-search-', IMAGE, { fallback: { text: 'Four by four.' } }, (media, dir) => {
  admin = join(dir, 'admin-scope');
  mkdirSync(admin);
  writeFileSync(join(admin, 'config.yaml'), ADMIN_CONFIG);
  writeFileSync(join(admin, '.env'), ADMIN_DOTENV);
  return {
    ...media.options,
    config: {
      ...media.options.config,
      model: { default: 'anthropic/claude-sonnet-4', provider: 'openrouter' },
      tools: { tool_search: { enabled: 'on', defer: DEFERRED } },
      web: { backend: 'exa' },
    },
    dotenv: { ...media.options.dotenv, EXA_API_KEY: 'exa-test-key-not-real' },
    env: { HERMES_MANAGED_DIR: admin },
  };
}, (open) => {
  userConfig = readFileSync(join(open.real.home, 'config.yaml'), 'utf8');
});

test("a user's defer list and an administrator's tool search pin hide nothing: all four are catalogued and answer", async () => {
  const served = s.real.gw.gateway.catalog.all().filter((e) => e.source === 'hermes' && (TOOL_SERVER_TOOLS as readonly string[]).includes(e.tool.name)).map((e) => e.tool.name).sort();
  assert.deepEqual(served, [...DEFERRED].sort());
  const image = await viaBridge(s.client, 'image_generate', { prompt: 'a deferred square', aspect_ratio: 'square' });
  assert.equal(image.data.success, true, JSON.stringify(image.data));
  assert.deepEqual(readFileSync(String(image.data.image)), IMAGE);
  assert.equal(s.media.images.requests.at(-1)?.body?.prompt, 'a deferred square');
  const path = join(s.real.home, 'picture.png');
  writeFileSync(path, IMAGE);
  const vision = await viaBridge(s.client, 'vision_analyze', { image_url: path, question: 'Size?' });
  assert.deepEqual([vision.data.success, vision.data.analysis], [true, 'Four by four.'], JSON.stringify(vision.data));
});

test("the administrator's pins still apply (its web backend serves the web smoke calls) and its .env is carried; nothing left the host, no config.yaml was touched", async () => {
  const r = await waitFor(async () => {
    const now = await toolServerReadiness(s.real.gw.url);
    return now.web.status !== 'starting' ? now : undefined;
  }, 60_000, 'the web smoke calls');
  assert.equal(r.web.status, 'ok', JSON.stringify(r.web));
  assert.ok(s.real.firecrawl.requests.some((q) => q.path === '/v2/search'), "the administrator's Firecrawl, not the user's Exa");
  const scope = String(r.hermesTools.details?.managed_dir);
  assert.equal(r.hermesTools.details?.admin_managed_dir, admin);
  assert.equal(readFileSync(join(scope, '.env'), 'utf8'), ADMIN_DOTENV);
  assert.deepEqual(s.real.egress, [], 'no model-metadata lookup, no keyless rescue');
  assert.equal(readFileSync(join(s.real.home, 'config.yaml'), 'utf8'), userConfig);
  assert.equal(readFileSync(join(admin, 'config.yaml'), 'utf8'), ADMIN_CONFIG);
});

test("without the gateway's managed scope, the newest Hermes' tool server lists none of the deferred tools (0.19.0 defers no built-in tool)", async () => {
  // Last: this run of the tool server looks the model's context length up (refused by the trap).
  const { tools } = await s.real.listDirectly({ ...s.real.gw.hermesTools.environment, HERMES_MANAGED_DIR: admin });
  const listed = tools.map((t) => t.name).filter((n) => DEFERRED.includes(n)).sort();
  assert.deepEqual(listed, gte(hermes().version, '0.22.2') ? [] : [...DEFERRED].sort());
});
