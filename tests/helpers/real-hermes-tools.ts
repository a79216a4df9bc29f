import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { numericDirs, processStartTime } from '../../shared/proc.js';
import { readEnvFile } from '../../supervisor/platform/environment.js';
import { toolServerCommand } from '../../supervisor/tools/hermes-tools/index.js';
import { cmdline } from './procfs.js';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startFirecrawlStandin, type FirecrawlStandin } from '../fixtures/firecrawl-standin.js';
import { startOpenAIImagesStandin, type OpenAIImagesStandin } from '../fixtures/openai-images-standin.js';
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from '../fixtures/scripted-model.js';
import type { Limits } from '../../shared/limits.js';
import { startFakeCamofox, type FakeCamofox } from './browser.js';
import { connect, startTestGateway, type TestGateway } from './gateway.js';
import { pngImage } from './hermes-tools.js';
import { hermes, makeHermesHome, startEgressTrap } from './hermes.js';
import { tempDirs } from './temp.js';

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
// DNS here, a public name cannot resolve, and Hermes refuses a URL it cannot resolve. The home
// says nothing about tool search, image input or keyless rescue: the gateway's own managed scope
// for its tool server (supervisor/tools/hermes-tools/managed-overlay.ts) pins those, and these
// tests run with it as production does (the egress trap would record a keyless rescue).

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
  /**
   * Found where Hermes' installer puts it instead of through HERMES_AGENT_PYTHON: $HERMES_HOME/hermes-agent
   * with venv/bin/python (here a script that runs the pinned venv's python), the gateway's defaults.
   */
  standardInstall?: boolean;
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
  /** The host pids of the real tool server processes serving this home (it runs in the worker's PID namespace). */
  toolServerPids(): number[];
  /** The tool server's own tools/list and serverInfo, from a separate run of it with the gateway's command, cwd and environment (or `env` instead). */
  listDirectly(env?: Record<string, string>): Promise<{ serverInfo: { name: string; version: string } | undefined; tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }> }>;
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
  if (options.standardInstall) {
    const bin = join(home, 'hermes-agent', 'venv', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'python'), `#!/bin/sh\nexec ${hermes().python} "$@"\n`);
    chmodSync(join(bin, 'python'), 0o755);
  }
  const userHome = join(dir, 'user-home');
  mkdirSync(userHome, { recursive: true });
  const trap = await startEgressTrap();
  const proxy = trap.env;
  // As production's gateway environment (supervisor/platform/environment.ts): the process's over $HERMES_HOME/.env,
  // which the tool server needs (it does not load that file itself: only get_env_value readers see it).
  const inherited = { ...readEnvFile(join(home, '.env')), PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: userHome, PYTHONDONTWRITEBYTECODE: '1', ...proxy, ...options.inherited };
  let gw: TestGateway;
  try {
    gw = await startTestGateway({
      home,
      env: { ...(options.standardInstall ? {} : { HERMES_AGENT_PYTHON: hermes().python }), HERMES_MCP_WEB_SMOKE_URL: SMOKE_PAGE, ...options.env },
      inherited,
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
    toolServerPids: () => toolServerPids(home),
    async listDirectly(env?: Record<string, string>) {
      const config = gw.gateway.config;
      const [command, ...args] = toolServerCommand(config, gw.hermes);
      const transport = new StdioClientTransport({ command: command!, args, cwd: config.hermesToolsCwd, env: env ?? { ...gw.hermesTools.environment }, stderr: 'ignore' });
      const client = new Client({ name: 'real-hermes-tools-test', version: '1.0.0' });
      await client.connect(transport, { timeout: 60_000 });
      try {
        const { tools } = await client.listTools(undefined, { timeout: 60_000 });
        return { serverInfo: client.getServerVersion(), tools: tools.map((t) => ({ name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown> })) };
      } finally {
        await client.close();
      }
    },
    async close() {
      await gw.close();
      await firecrawl.close();
      await trap.close();
    },
  };
}

/**
 * Hermes' vision and image providers as local stand-ins, for a tool server that lists
 * vision_analyze and image_generate: its auxiliary vision client at a scripted OpenAI-compatible
 * model (auxiliary.vision.base_url, model scripted-vision, key sk-scripted-vision), its OpenAI image
 * backend at an Images API stand-in answering `image` (image_gen.provider: openai; OPENAI_BASE_URL
 * and OPENAI_API_KEY sk-images-standin in $HERMES_HOME/.env, which the gateway's environment
 * carries to the tool server). `options` goes to startRealTools.
 */
export interface MediaProviders {
  model: ScriptedModel;
  images: OpenAIImagesStandin;
  options: Pick<RealToolsOptions, 'config' | 'dotenv'>;
  close(): Promise<void>;
}

export async function startMediaProviders(image: Buffer, modelOptions: ScriptedModelOptions = {}): Promise<MediaProviders> {
  const model = await startScriptedModel(modelOptions);
  const images = await startOpenAIImagesStandin(image);
  return {
    model,
    images,
    options: {
      config: { auxiliary: { vision: { base_url: model.baseUrl, api_key: 'sk-scripted-vision', model: 'scripted-vision' } }, image_gen: { provider: 'openai' } },
      dotenv: { OPENAI_API_KEY: 'sk-images-standin', OPENAI_BASE_URL: images.baseUrl },
    },
    async close() {
      await model.close();
      await images.close();
    },
  };
}

/** A test file's gateway in front of the real tool server with the media providers, and a modern client of it. */
export interface RealMediaSuite {
  readonly real: RealTools;
  readonly media: MediaProviders;
  readonly client: Client;
}

/**
 * Opens a RealMediaSuite before the file's tests (providers answering `image`, the tool server's
 * options from `options`, given the providers and a fresh directory) and closes the client, the
 * gateway, the providers and the directories after them. `opened` runs once it is open, in the same
 * hook (a second top-level `before` would not wait for this one on Node 20).
 */
export function realMediaSuite(prefix: string, image: Buffer, modelOptions: ScriptedModelOptions, options: (media: MediaProviders, dir: string) => RealToolsOptions, opened?: (suite: RealMediaSuite) => void): RealMediaSuite {
  const temp = tempDirs();
  let parts: RealMediaSuite | undefined;
  let media: MediaProviders | undefined;
  let real: RealTools | undefined;
  let client: Client | undefined;
  before(async () => {
    const dir = temp.make(prefix);
    media = await startMediaProviders(image, modelOptions);
    real = await startRealTools(dir, options(media, dir));
    client = await connect(real.gw.mcpUrl, 'modern');
    parts = { real, media, client };
    opened?.(parts);
  });
  after(async () => {
    await client?.close();
    await real?.close();
    await media?.close();
    temp.removeAll();
  });
  const open = (): RealMediaSuite => {
    if (!parts) throw new Error('the real tool server suite is not open (used outside its tests)');
    return parts;
  };
  return {
    get real() { return open().real; },
    get media() { return open().media; },
    get client() { return open().client; },
  };
}

/**
 * browser_vision end to end: Hermes' real tool server offering vision_analyze (its auxiliary
 * vision client at a scripted OpenAI-compatible model answering `analysis`), behind a gateway
 * whose browser is a Camofox stand-in (Camofox is not Hermes) with one page, http://10.9.8.7/ (a
 * button "Go"), and a 1280x720 PNG screenshot of it.
 */
export interface RealBrowserVision {
  camofox: FakeCamofox;
  model: ScriptedModel;
  real: RealTools;
  close(): Promise<void>;
}

export const VISION_PAGE = 'http://10.9.8.7/';
export const VISION_SCREENSHOT = pngImage(1280, 720);

export async function startRealBrowserVision(dir: string, analysis: string): Promise<RealBrowserVision> {
  const camofox = await startFakeCamofox({
    reply: (r) => {
      if (r.method === 'POST' && r.path === '/tabs') return { status: 200, body: { tabId: 'tab-1' } };
      if (r.path.startsWith('/tabs/tab-1/snapshot')) return { status: 200, body: { url: VISION_PAGE, snapshot: '- button "Go" [e1]', refsCount: 1 } };
      if (r.path.startsWith('/tabs/tab-1/screenshot')) return { status: 200, body: VISION_SCREENSHOT };
      return { status: 404, body: { error: 'Not found' } };
    },
  });
  const model = await startScriptedModel({ fallback: { text: analysis } });
  const real = await startRealTools(dir, {
    config: { browser: { allow_private_urls: true }, auxiliary: { vision: { base_url: model.baseUrl, api_key: 'sk-scripted', model: 'scripted-vision' } } },
    env: { CAMOFOX_URL: camofox.url },
  });
  return {
    camofox,
    model,
    real,
    async close() {
      await real.close();
      await model.close();
      await camofox.close();
    },
  };
}

let mcpVersion: string | undefined;
/**
 * The version of the `mcp` package in the pinned Hermes venv: the library Hermes' tool server is
 * built on (1.x: FastMCP, one call at a time, its own version as serverInfo; 2.x: MCPServer, which
 * serves a ping or a second call while a call runs, and reports no version).
 */
export function hermesMcpVersion(): string {
  if (mcpVersion === undefined) {
    const r = spawnSync(hermes().python, ['-c', 'import importlib.metadata as m; print(m.version("mcp"))'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the mcp package of ${hermes().python}: ${r.stderr}`);
    mcpVersion = r.stdout.trim();
  }
  return mcpVersion;
}

/** Whether the pinned Hermes' tool server runs on mcp 2.x (hermesMcpVersion). */
export const mcpTwo = (): boolean => Number(hermesMcpVersion().split('.')[0]) >= 2;

const MODULE = 'agent.transports.hermes_tools_mcp_server';

/** Host pids of `python -m agent.transports.hermes_tools_mcp_server` processes whose HERMES_HOME is `home`. */
export function toolServerPids(home: string): number[] {
  return numericDirs('/proc').filter((pid) => {
    if (pid === process.pid || !cmdline(pid).includes(MODULE) || processStartTime(pid) === undefined) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HERMES_HOME=${home}`);
    } catch {
      return false;
    }
  });
}
