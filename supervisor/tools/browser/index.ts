import type { Logger } from 'pino';
import type { Adapter } from '../../core/adapter.js';
import type { GatewayConfig } from '../../platform/config.js';
import type { ProbeResult } from '../../platform/health/readiness.js';
import { BrowserBindings } from './bindings.js';
import { callBudget, camofoxMessage, CamofoxClient } from './client.js';
import { CamofoxSessions } from './session.js';
import { resolveBrowserSettings } from './settings.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { actTools } from './act/index.js';
import { inspectTools } from './inspect/index.js';
import { browserKit } from './kit.js';
import { pageTools } from './page/index.js';
import { visionTools } from './vision-tool/index.js';
import { visionUnavailable, type VisionAnalyzer } from './vision.js';

// The vision seam Hermes' tools adapter fills (supervisor/tools/hermes-tools/vision.ts).
export { visionRefusal, type VisionAnalyzer } from './vision.js';

// The browser adapter: Hermes' ten browser tools, natively against Camofox' REST API (as Hermes'
// tools/browser_camofox.py drives it), one tab per owner. /readyz `browser` is Camofox' /health;
// HERMES_MCP_OPTIONAL_COMPONENTS=browser runs without it. session_close drops only that owner's
// binding. /healthz reports how many owners hold a tab (never calls Camofox).

// The ten Hermes browser tools on Camofox (tools/browser_tool.py schemas, tools/browser_camofox.py
// calls and result shapes). Descriptions say what this gateway serves: browser_vision's says whether
// its analysis step works here (vision.ts; known before these tools are built, since Hermes' tool
// server is asked for its tools first), and none points at tools it may not have.
// One folder per group of tools: page/ (navigate, snapshot), act/ (click, type, press, scroll,
// back), inspect/ (get_images, console), vision-tool/ (vision); what they share: kit.ts.

function browserTools(sessions: CamofoxSessions, vision: VisionAnalyzer): ToolDefinition[] {
  const kit = browserKit(sessions);
  return [...pageTools(kit), ...actTools(kit), ...inspectTools(kit, vision), ...visionTools(kit, vision)];
}

export interface BrowserAdapter extends Adapter {
  sessions: CamofoxSessions;
}

export function browserAdapter(config: GatewayConfig, log: Logger, vision: VisionAnalyzer = visionUnavailable): BrowserAdapter {
  const settings = resolveBrowserSettings(config);
  for (const warning of settings.warnings) log.warn({ event: 'browser_config_warning', warning });
  const client = new CamofoxClient(settings.baseUrl, settings.apiKey);
  const sessions = new CamofoxSessions(client, new BrowserBindings(settings.identity), settings);
  log.info({ event: 'browser_configured', camofox_url: settings.baseUrl, identity: settings.identity.mode, private_urls: settings.allowPrivateUrls, command_timeout_s: settings.commandTimeoutMs / 1000 }, 'browser tools use Camofox');

  const action = `start the Camofox browser server at ${settings.baseUrl} (or point CAMOFOX_URL at it), or set HERMES_MCP_OPTIONAL_COMPONENTS=browser to run without the browser tools`;
  const probe = async (): Promise<ProbeResult> => {
    try {
      const reply = await client.request('GET', '/health', { budget: callBudget(settings.healthTimeoutMs, 'browserHealthTimeoutSeconds') });
      const details = { camofox_url: settings.baseUrl, browser_running: reply.json?.browserRunning, active_tabs: reply.json?.activeTabs };
      if (reply.status === 200) return { ready: true, status: 'ok', details };
      const why = typeof reply.json?.reason === 'string' ? reply.json.reason : camofoxMessage(reply);
      return { ready: false, status: 'error', reason: `Camofox /health answered ${reply.status} (${why})`, action, details };
    } catch (e) {
      return { ready: false, status: 'unreachable', reason: (e as Error).message, action, details: { camofox_url: settings.baseUrl } };
    }
  };

  return {
    name: 'browser',
    sessions,
    source: { name: 'browser', tools: () => browserTools(sessions, vision) },
    readiness: [{ name: 'browser', probe }],
    releaseHook: (ownerId) => sessions.release(ownerId),
    health: () => ({ browser_bound_tabs: sessions.bindings.boundTabs }),
  };
}
