import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Limits } from '../../shared/limits.js';
import { startHonchoStandin, type HonchoStandin, type RecordedCall, type SeedData } from '../fixtures/honcho-standin.js';
import { makeHermesHome, startTestGateway, type TestGateway } from './gateway.js';

// A real gateway whose Hermes home carries a honcho.json pointing at an in-process Honcho stand-in,
// exactly as Hermes would be configured for a self-hosted Honcho (no test-only switches).

export const USER_PEER = 'ada';

/** A honcho.json pointing at `baseUrl` (a root key: Hermes reads no host-block base URL) whose `hermes` host block names user peer `ada` (plus `extra`). */
export function honchoJson(baseUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { baseUrl, hosts: { hermes: { peerName: USER_PEER, workspace: 'hermes', ...extra } } };
}

/** What the stand-in holds before a test: the user's card, representation, a Hermes session. */
export const SEED: SeedData = {
  workspace: 'hermes',
  peers: [USER_PEER, 'hermes'],
  cards: [{ observer: 'hermes', observed: USER_PEER, card: ['Name: Ada', 'Role: platform engineer', 'Prefers pnpm over npm'] }],
  // Hermes' assistant peer's view of the user: what Hermes' own tools (and the gateway's reads) see.
  representations: [
    {
      observer: 'hermes',
      observed: USER_PEER,
      lines: ['Ada prefers pnpm over npm for JavaScript projects', 'Ada deploys the gateway on Mondays, never on Fridays', 'Ada writes tests with node:test'],
    },
  ],
  sessions: [
    {
      id: 'hermes-mcp-gateway',
      summary: 'Ada and Hermes are building the MCP gateway memory adapter.',
      messages: [
        { peer: USER_PEER, content: 'Let us wire Honcho into the gateway.' },
        { peer: 'hermes', content: 'I will use the official SDK.' },
      ],
    },
  ],
};

export interface MemoryGateway {
  gw: TestGateway;
  standin: HonchoStandin;
  home: string;
  /** Calls the stand-in received whose method and path match. */
  callsTo(method: string, path: RegExp | string): RecordedCall[];
  close(): Promise<void>;
}

export async function startMemoryGateway(
  options: {
    /** honcho.json contents (default honchoJson(stand-in url)); null writes none. */
    honcho?: Record<string, unknown> | ((url: string) => Record<string, unknown>) | null;
    env?: Record<string, string> | ((url: string) => Record<string, string>);
    limits?: Partial<Limits>;
    seed?: SeedData | null;
  } = {},
): Promise<MemoryGateway> {
  const standin = await startHonchoStandin();
  if (options.seed !== null) standin.seed(options.seed ?? SEED);
  const home = makeHermesHome();
  const honcho = options.honcho === undefined ? honchoJson(standin.url) : typeof options.honcho === 'function' ? options.honcho(standin.url) : options.honcho;
  if (honcho) writeFileSync(join(home, 'honcho.json'), JSON.stringify(honcho, null, 2));
  let gw: TestGateway;
  try {
    const env = typeof options.env === 'function' ? options.env(standin.url) : options.env;
    gw = await startTestGateway({ home, env: { HERMES_HOME: home, ...env }, ...(options.limits ? { limits: options.limits } : {}) });
  } catch (e) {
    await standin.close();
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  return {
    gw,
    standin,
    home,
    callsTo(method, path) {
      return standin.calls.filter((c) => c.method === method && (typeof path === 'string' ? c.path === path : path.test(c.path)));
    },
    async close() {
      await gw.close();
      await standin.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Polls `cond` every 10 ms; throws naming `what` after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
