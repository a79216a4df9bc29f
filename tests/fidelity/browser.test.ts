import type { Client } from '@modelcontextprotocol/client';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { ALLOW_LOOPBACK_PAGES, browse } from '../helpers/browser.js';
import { startStandin, type Standin } from '../helpers/camofox.js';
import { openSession, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { copyOfHermesHome } from '../helpers/hermes.js';
import { tempDirs } from '../helpers/temp.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oracleAnswers, runOracle, type Answers, type FidelityCase } from './harness.js';

// The ten browser tools against Hermes' own in Camofox mode (tools/browser_tool.py browser_* with
// CAMOFOX_URL set, which hands every call to tools/browser_camofox.py), both sides driving the
// Camofox stand-in (tests/fixtures/camofox-standin.ts, real Chromium) over the same local pages.
// The cases are one browsing session per `task`, run in file order on each side; each side has a
// Camofox user of its own (CAMOFOX_USER_ID, which Hermes and the gateway both honour), so neither
// can see the other's tabs. Both homes allow private pages (browser.allow_private_urls), since the
// pages are on 127.0.0.1.
//
// browser_vision is compared only where it needs no vision model (before a page is open): its
// analysis step is Hermes' auxiliary vision model on one side and the tool server's vision_analyze
// on the other.

interface BrowserCase extends FidelityCase {
  tool: string;
  args?: Record<string, unknown>;
  /** The session (Hermes task id; a session_open of its own on the gateway) the case runs in. */
  task?: string;
  /** `close-tab`: the session's tab is closed in Camofox first (Camofox reaped it). */
  before?: 'close-tab';
}

const HERMES_USER = 'fid_hermes';
const GATEWAY_USER = 'fid_gateway';
const TAB_ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

const temp = tempDirs();
const cases = loadCases<BrowserCase>('browser');
let pages: FixturePages | undefined;
let standin: Standin | undefined;
let gw: TestGateway | undefined;
const clients: Client[] = [];

const camofoxUrl = () => `http://127.0.0.1:${standin!.port}`;

/** `{origin}` in a case's string arguments is the local pages' origin. */
function argsOf(c: BrowserCase): Record<string, unknown> {
  return Object.fromEntries(Object.entries(c.args ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v.split('{origin}').join(pages!.origin) : v]));
}

/** Ports, the side's Camofox user and Camofox' random tab ids folded; a gateway error in Hermes' words. */
function norm(value: unknown, user: string): unknown {
  const folded = normalise(errorAsHermes(value), { replace: { [pages!.origin]: '<origin>', [camofoxUrl()]: '<camofox>', [user]: '<user>' } });
  return JSON.parse(JSON.stringify(folded).replace(TAB_ID, '<tab>')) as unknown;
}

/** The Camofox tabs of `user` in the tab group `listItemId`. */
async function tabsOf(user: string): Promise<Array<{ tabId: string; listItemId?: string }>> {
  const r = await standin!.call('GET', `/tabs?userId=${user}`);
  return (r.json as { tabs: Array<{ tabId: string; listItemId?: string }> }).tabs;
}

compareSurface<BrowserCase>({
  surface: 'browser',
  cases,
  async setUp() {
    pages = await startFixturePages();
    standin = await startStandin();
    const home = copyOfHermesHome(temp.make('hmcp-fid-browser-gw-'), { config: ALLOW_LOOPBACK_PAGES });
    gw = await startTestGateway({ home, env: { CAMOFOX_URL: camofoxUrl(), CAMOFOX_USER_ID: GATEWAY_USER } });
  },
  async tearDown() {
    for (const c of clients) await c.close();
    await gw?.close();
    await standin?.stop();
    await pages?.close();
    temp.removeAll();
  },
  async hermes(list) {
    const home = copyOfHermesHome(temp.make('hmcp-fid-browser-hermes-'), { config: ALLOW_LOOPBACK_PAGES });
    const input = { cases: list.map((c) => ({ id: c.id, tool: c.tool, args: argsOf(c), ...(c.task ? { task: c.task } : {}), ...(c.before ? { before: c.before } : {}) })) };
    const answers = oracleAnswers(await runOracle('browser.py', input, home, { CAMOFOX_URL: camofoxUrl(), CAMOFOX_USER_ID: HERMES_USER }, 300_000));
    return new Map([...answers].map(([id, a]) => [id, norm(a, HERMES_USER)]));
  },
  gateway: {
    async mcp(list) {
      const sessions = new Map<string, { client: Client; token: string }>();
      // Which tab group (listItemId) is which session's: learnt when a session's first tab appears.
      const groups = new Map<string, string>();
      const out: Answers = new Map();
      for (const c of list) {
        const task = c.task ?? 'main';
        let session = sessions.get(task);
        if (!session) {
          session = await openSession(gw!.mcpUrl);
          clients.push(session.client);
          sessions.set(task, session);
        }
        if (c.before === 'close-tab') {
          const tab = (await tabsOf(GATEWAY_USER)).find((t) => t.listItemId !== undefined && groups.get(t.listItemId) === task);
          if (!tab) throw new Error(`${c.id}: the gateway's session ${task} has no tab to close`);
          await standin!.call('DELETE', `/tabs/${tab.tabId}?userId=${GATEWAY_USER}`);
        }
        const r = await browse(session.client, session.token, c.tool, argsOf(c));
        out.set(c.id, norm(r.data, GATEWAY_USER));
        for (const t of await tabsOf(GATEWAY_USER)) if (t.listItemId !== undefined && !groups.has(t.listItemId)) groups.set(t.listItemId, task);
      }
      return out;
    },
  },
});
