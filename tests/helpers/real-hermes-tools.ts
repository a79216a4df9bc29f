import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startFirecrawlStandin, type FirecrawlStandin } from '../fixtures/firecrawl-standin.js';
import type { Limits } from '../../shared/limits.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { hermes, makeHermesHome, startEgressTrap } from './hermes.js';

// A gateway in front of the real Hermes tool server (the pinned Hermes venv), launched as
// production launches it: HERMES_AGENT_PYTHON names the venv's python and nothing else, so the
// command is `$HERMES_AGENT_PYTHON -m agent.transports.hermes_tools_mcp_server` in $HERMES_HOME (no
// source tree there: a pip install). The HERMES_HOME is built by Hermes' config code with its web
// backend Firecrawl, pointed (FIRECRAWL_API_URL in its .env) at a local Firecrawl stand-in.
//
// Nothing reaches the internet: the tool server inherits only PATH, LANG, a throw-away HOME and
// HTTP(S)_PROXY naming a local trap that refuses every request and records it (`egress`, which a
// test keeps empty; loopback is exempt through NO_PROXY); tirith is off and the model has an
// explicit context length (no model-metadata lookup). `security.allow_private_urls` is on so
// Hermes' URL safety check lets the loopback smoke page through (HERMES_MCP_WEB_SMOKE_URL): with no
// DNS here, a public name cannot resolve, and Hermes refuses a URL it cannot resolve.

/** The smoke page: a loopback name (allowed by security.allow_private_urls); Firecrawl, not Hermes, "reads" it. */
export const SMOKE_PAGE = 'http://localhost/hermes-mcp-smoke';

export interface RealToolsOptions {
  /** More config.yaml keys (merged by Hermes' config module). */
  config?: Record<string, unknown>;
  /** More $HERMES_HOME/.env values. */
  dotenv?: Record<string, string>;
  /** More variables the tool server inherits (e.g. OPENAI_BASE_URL for Hermes' OpenAI image backend). */
  inherited?: Record<string, string>;
  /** FIRECRAWL_API_URL instead of the stand-in's (e.g. a closed port). */
  firecrawlUrl?: string;
  /** The stand-in answers every request with this HTTP status and error from the start. */
  firecrawlFails?: { status: number; error: string };
  /** Gateway settings (HERMES_MCP_*). */
  env?: Record<string, string>;
  limits?: Partial<Limits>;
}

export interface RealTools {
  gw: TestGateway;
  firecrawl: FirecrawlStandin;
  home: string;
  /** Every outbound request Hermes tried (refused by the trap). */
  egress: string[];
  close(): Promise<void>;
}

/** The HERMES_HOME for the real tool server, by Hermes' own config code. */
export function realToolsHome(dir: string, firecrawlUrl: string, options: Pick<RealToolsOptions, 'config' | 'dotenv'> = {}): string {
  return makeHermesHome(join(dir, 'hermes-home'), {
    config: {
      model: { context_length: 131072 },
      security: { tirith_enabled: false, allow_private_urls: true },
      web: { backend: 'firecrawl' },
      ...options.config,
    },
    env: { FIRECRAWL_API_URL: firecrawlUrl, ...options.dotenv },
  });
}

export async function startRealTools(dir: string, options: RealToolsOptions = {}): Promise<RealTools> {
  const firecrawl = await startFirecrawlStandin();
  if (options.firecrawlFails) firecrawl.failWith(options.firecrawlFails.status, options.firecrawlFails.error);
  const home = realToolsHome(dir, options.firecrawlUrl ?? firecrawl.url, options);
  const userHome = join(dir, 'user-home');
  mkdirSync(userHome, { recursive: true });
  const trap = await startEgressTrap();
  const proxy = trap.env;
  let gw: TestGateway;
  try {
    gw = await startTestGateway({
      home,
      env: { HERMES_AGENT_PYTHON: hermes().python, HERMES_MCP_WEB_SMOKE_URL: SMOKE_PAGE, ...options.env },
      inherited: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: userHome, PYTHONDONTWRITEBYTECODE: '1', ...proxy, ...options.inherited },
      limits: { hermesToolsStartupTimeoutSeconds: 60, ...options.limits },
    });
  } catch (e) {
    await firecrawl.close();
    await trap.close();
    throw e;
  }
  return {
    gw,
    firecrawl,
    home,
    egress: trap.attempts,
    async close() {
      await gw.close();
      await firecrawl.close();
      await trap.close();
    },
  };
}
