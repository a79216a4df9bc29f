import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/client';
import { startFixturePages, type FixturePages } from '../fixtures/camofox/pages.js';
import { ALLOW_LOOPBACK_PAGES, browse } from '../helpers/browser.js';
import { startStandin, type Standin } from '../helpers/camofox.js';
import { openSession, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { hermes, type HomeSpec } from '../helpers/hermes.js';
import type { CheckContext } from '../../scripts/divergence-predicates.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oracleAnswers, runOracle, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';

// The ten browser tools against Hermes' own in Camofox mode (tools/browser_tool.py browser_* with
// CAMOFOX_URL set, which hands every call to tools/browser_camofox.py), both sides driving the
// Camofox stand-in (tests/fixtures/camofox-standin.ts, real Chromium) over the same local pages.
// The cases are one browsing session per `task`, run in file order on each side; each side has a
// Camofox user of its own (CAMOFOX_USER_ID, which Hermes and the gateway both honour), so neither
// can see the other's tabs. Most cases run with homes that allow private pages
// (browser.allow_private_urls), since the pages are on 127.0.0.1; the `restricted` ones also turn
// on Hermes' evaluate denylist (browser.restrict_evaluate), the `private-refused` ones allow no
// private pages. Each home has a gateway and a Hermes process of its own.
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
  home?: 'restricted' | 'private-refused';
}

type HomeName = 'open' | 'restricted' | 'private-refused';
const HOMES: Record<HomeName, HomeSpec> = {
  open: { config: ALLOW_LOOPBACK_PAGES },
  restricted: { config: { browser: { ...ALLOW_LOOPBACK_PAGES.browser, restrict_evaluate: true } } },
  'private-refused': {},
};
/** Each side's Camofox user in each home. */
const userOf = (side: 'hermes' | 'gateway', home: HomeName) => `fid_${side}_${home}`;
const homeOf = (c: BrowserCase): HomeName => c.home ?? 'open';
const TAB_ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

const fx = new SurfaceFixture('browser');
const cases = loadCases<BrowserCase>('browser');
let pages: FixturePages | undefined;
let standin: Standin | undefined;
const gateways = new Map<HomeName, TestGateway>();
const clients: Client[] = [];

const camofoxUrl = () => `http://127.0.0.1:${standin!.port}`;
const homesUsed = (): HomeName[] => [...new Set(cases.map(homeOf))];

/** `{origin}` in a case's string arguments is the local pages' origin. */
function argsOf(c: BrowserCase): Record<string, unknown> {
  return Object.fromEntries(Object.entries(c.args ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v.split('{origin}').join(pages!.origin) : v]));
}

/** Ports, the side's Camofox user and Camofox' random tab ids folded; a gateway error in Hermes' words. */
function norm(value: unknown, user: string): unknown {
  const folded = normalise(errorAsHermes(value), { replace: { [pages!.origin]: '<origin>', [camofoxUrl()]: '<camofox>', [user]: '<user>' } });
  return JSON.parse(JSON.stringify(folded).replace(TAB_ID, '<tab>')) as unknown;
}

/** The Camofox tabs of `user`, each with its tab group (`listItemId`). */
async function tabsOf(user: string): Promise<Array<{ tabId: string; listItemId?: string }>> {
  const r = await standin!.call('GET', `/tabs?userId=${user}`);
  return (r.json as { tabs: Array<{ tabId: string; listItemId?: string }> }).tabs;
}

/** A string field of a whole answer, or undefined. */
const textOf = (answer: unknown, field: string): string | undefined => {
  const v = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)[field] : undefined;
  return typeof v === 'string' ? v : undefined;
};

/**
 * The primitive an evaluate refusal's message names, in Hermes' words (tools/browser_tool.py
 * _enforce_browser_eval_policy, tools/browser_tool_eval_policy.py from 0.22: "… sensitive browser
 * JavaScript primitive (<what>) while …"): from
 * Hermes' error where Hermes refuses too, else from the gateway's (which its own entry pins).
 */
function primitiveNamedInError(c: CheckContext): boolean {
  const message = textOf(c.hermesAnswer, 'error') ?? textOf(c.gatewayAnswer, 'error') ?? '';
  const named = /sensitive browser JavaScript primitive \((.+?)\) while/.exec(message)?.[1];
  return named !== undefined && c.gateway === named;
}

/** Hermes' default snapshot limit (tools/browser_tool.py SNAPSHOT_SUMMARIZE_THRESHOLD; DEFAULT_SNAPSHOT_THRESHOLD from 0.22). */
const HERMES_SNAPSHOT_THRESHOLD = 15_000;
/** The room Hermes' _truncate_snapshot keeps for its note when it has no stored copy to name. */
const HERMES_PLAIN_NOTE_RESERVE = 110;

/**
 * Hermes' own cut of the full snapshot, as it makes it when it has no stored copy to point at
 * (tools/browser_tool.py _truncate_snapshot, tools/browser_tool_snapshot.py from 0.22: line
 * boundaries, the note's reserve, the plain browser_snapshot note). The full snapshot is the copy
 * Hermes stored and names in its own note (read while its home still exists).
 */
function snapshotCutWithoutStoredCopy(c: CheckContext): boolean {
  const stored = /read_file path="([^"]+)"/.exec(typeof c.hermes === 'string' ? c.hermes : '')?.[1];
  if (stored === undefined) return false;
  const full = readFileSync(stored, 'utf8');
  if (full.length <= HERMES_SNAPSHOT_THRESHOLD) return false;
  const lines = full.split('\n');
  const kept: string[] = [];
  let chars = 0;
  const reserve = Math.min(HERMES_PLAIN_NOTE_RESERVE, Math.floor(HERMES_SNAPSHOT_THRESHOLD / 2));
  for (const line of lines) {
    if (chars + line.length + 1 > HERMES_SNAPSHOT_THRESHOLD - reserve) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const expected = `${kept.join('\n')}\n\n[... ${lines.length - kept.length} more lines truncated, use browser_snapshot for full content]`;
  return c.gateway === expected;
}

compareSurface<BrowserCase>({
  surface: 'browser',
  cases,
  fixture: fx,
  checks: { 'primitive-named-in-error': primitiveNamedInError, 'snapshot-cut-without-stored-copy': snapshotCutWithoutStoredCopy },
  async setUp() {
    pages = await startFixturePages();
    standin = await startStandin();
    for (const name of homesUsed()) {
      const home = fx.hermesHome(`gw-${name}`, HOMES[name]);
      gateways.set(name, await startTestGateway({ home, env: { CAMOFOX_URL: camofoxUrl(), CAMOFOX_USER_ID: userOf('gateway', name), HERMES_MCP_HERMES_VERSION: hermes().version } }));
    }
  },
  async tearDown() {
    for (const c of clients) await c.close();
    for (const gw of gateways.values()) await gw.close();
    await standin?.stop();
    await pages?.close();
  },
  async hermes(list) {
    const out: Answers = new Map();
    for (const name of homesUsed()) {
      const home = fx.hermesHome(`hermes-${name}`, HOMES[name]);
      const user = userOf('hermes', name);
      const input = { cases: list.filter((c) => homeOf(c) === name).map((c) => ({ id: c.id, tool: c.tool, args: argsOf(c), ...(c.task ? { task: c.task } : {}), ...(c.before ? { before: c.before } : {}) })) };
      const answers = oracleAnswers(await runOracle('browser.py', input, home, { CAMOFOX_URL: camofoxUrl(), CAMOFOX_USER_ID: user }, 300_000));
      for (const [id, a] of answers) out.set(id, norm(a, user));
    }
    return out;
  },
  gateway: {
    async mcp(list) {
      const out: Answers = new Map();
      for (const name of homesUsed()) {
        const gw = gateways.get(name)!;
        const user = userOf('gateway', name);
        const sessions = new Map<string, { client: Client; token: string }>();
        // Which tab group (listItemId) is which session's: learnt when a session's first tab appears.
        const groups = new Map<string, string>();
        for (const c of list.filter((x) => homeOf(x) === name)) {
          const task = c.task ?? 'main';
          let session = sessions.get(task);
          if (!session) {
            session = await openSession(gw.mcpUrl);
            clients.push(session.client);
            sessions.set(task, session);
          }
          if (c.before === 'close-tab') {
            const tab = (await tabsOf(user)).find((t) => t.listItemId !== undefined && groups.get(t.listItemId) === task);
            if (!tab) throw new Error(`${c.id}: the gateway's session ${task} has no tab to close`);
            await standin!.call('DELETE', `/tabs/${tab.tabId}?userId=${user}`);
          }
          const r = await browse(session.client, session.token, c.tool, argsOf(c));
          out.set(c.id, norm(r.data, user));
          for (const t of await tabsOf(user)) if (t.listItemId !== undefined && !groups.has(t.listItemId)) groups.set(t.listItemId, task);
        }
      }
      return out;
    },
  },
});
