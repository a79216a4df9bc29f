import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHonchoStandin, type HonchoStandin, type RecordedCall, type SeedData } from '../fixtures/honcho-standin.js';
import { connect, viaBridge } from '../helpers/gateway.js';
import { hermes, honchoOracle } from '../helpers/hermes.js';
import { honchoJson, SEED, startMemoryGateway, USER_PEER } from '../helpers/memory.js';
import { compareSurface, errorAsHermes, loadCases, oracleAnswers, runOracle, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';

// honcho_tools: the gateway's memory tools (supervisor/tools/memory/, over MCP) against Hermes' own
// Honcho tools (drivers/honcho_tools.py: plugins/memory/honcho HonchoMemoryProvider.handle_tool_call),
// each side against a Honcho stand-in of its own (tests/fixtures/honcho-standin.ts) seeded alike and
// configured by the same honcho.json. The tools are shaped differently (Hermes answers prose in
// `result`, the gateway structured fields), so each case names a `view`: the substance both answers
// carry (a card, an answer, conclusions) taken out of each the one way written below, plus the
// requests the tools made to the stand-in (`touched`: method, route and the peers, targets and
// sessions named), which show whose memory each side read or wrote where the answers alone would
// not. Hermes' side runs in the pin's venv, or in the Honcho oracle venv where the pin's package has
// no Honcho provider (honchoOracle()); the gateway follows the pin's version. Each side is warmed up first (Hermes' provider start-up creates its session; the gateway
// prepares its peers on a first call), then a marker request (GET /health) starts the comparison.

interface ToolsCase extends FidelityCase {
  seed?: keyof typeof SEEDS;
  /** Extra honcho.json keys of the hermes host block (both sides). */
  config?: Record<string, unknown>;
  hermes: Array<[string, Record<string, unknown>]>;
  gateway: Array<[string, Record<string, unknown>]>;
  view: 'profile' | 'reasoning' | 'context' | 'search' | 'conclusions' | 'error';
  /** The name of the working directory both sides run in (default PROJECT: the seeded session's name). */
  cwd?: string;
}

const HERMES_PEER = 'hermes';
/** The working directory both sides run in by default: Hermes names its session after it, and the seeds hold a session of that name. */
const PROJECT = 'hermes-mcp-gateway';

const SEEDS: Record<string, SeedData> = {
  default: SEED,
  // Only the user's own card and representation: what Hermes reads when its assistant peer has none.
  own: {
    ...SEED,
    cards: [{ observer: USER_PEER, observed: USER_PEER, card: ['Name: Ada', 'Prefers tabs'] }],
    representations: [{ observer: USER_PEER, observed: USER_PEER, lines: ['Ada prefers tabs over spaces'] }],
  },
  empty: { workspace: 'hermes', peers: [USER_PEER, HERMES_PEER] },
  // What Hermes' own conversations leave: the assistant peer's view of the user, besides the user's own.
  observed: {
    ...SEED,
    cards: [...(SEED.cards ?? []), { observer: HERMES_PEER, observed: USER_PEER, card: ['Name: Ada', 'Works on the MCP gateway'] }],
    representations: [...(SEED.representations ?? []), { observer: HERMES_PEER, observed: USER_PEER, lines: ['Ada asked Hermes to wire Honcho into the gateway', 'Ada prefers small commits'] }],
  },
  conclusions: {
    ...SEED,
    conclusions: [
      { observer: HERMES_PEER, observed: USER_PEER, content: 'Ada prefers small commits' },
      { observer: 'chatgpt', observed: USER_PEER, content: '[preference] Ada prefers pnpm over npm' },
    ],
  },
};

const fx = new SurfaceFixture('honcho-tools');
const cases = loadCases<ToolsCase>('honcho_tools');

/** A call the comparison keeps: method, route, and the peers/targets/sessions it names. */
function touched(calls: RecordedCall[]): string[] {
  const marker = calls.findIndex((c) => c.path === '/health');
  const named = (o: unknown, keys: string[]) =>
    typeof o === 'object' && o !== null
      ? keys.flatMap((k) => {
          const v = (o as Record<string, unknown>)[k];
          return v === undefined || v === null ? [] : [`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`];
        })
      : [];
  const out = calls.slice(marker + 1).map((c) => {
    const body = Array.isArray((c.body as { conclusions?: unknown[] } | undefined)?.conclusions) ? (c.body as { conclusions: unknown[] }).conclusions[0] : c.body;
    const details = [...named(c.query, ['target', 'peer_target', 'peer_perspective']), ...named(body, ['target', 'observer_id', 'observed_id', 'session_id', 'filters'])];
    // Conclusion ids are the stand-in's own (random).
    return `${c.method} ${c.path.replace(/\/conclusions\/(?!list$|query$)[A-Za-z0-9_-]+$/, '/conclusions/<id>')}${details.length ? ` ${details.join(' ')}` : ''}`;
  });
  return [...new Set(out)].sort();
}

/** The case's calls with each "{id:<content>}" replaced by the id of the stand-in's conclusion with that content. */
function withIds(calls: Array<[string, Record<string, unknown>]>, standin: HonchoStandin): Array<[string, Record<string, unknown>]> {
  const idOf = (v: unknown) => {
    const m = typeof v === 'string' ? /^\{id:(.*)\}$/.exec(v) : null;
    return m ? (standin.conclusions('hermes').find((x) => x.content === m[1])?.id ?? v) : v;
  };
  return calls.map(([tool, args]) => [tool, Object.fromEntries(Object.entries(args).map(([k, v]) => [k, idOf(v)]))]);
}

/** Hermes' card list (honcho_profile `result`; the empty-card hint is no card). */
function hermesCard(r: Record<string, unknown>): string[] {
  return Array.isArray(r.result) ? (r.result as string[]) : [];
}

/** Hermes' honcho_context sections (`## Name\n...` joined by blank lines) by name. */
function sections(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(/\n\n(?=## )/)) {
    const m = /^## ([^\n]+)\n([\s\S]*)$/.exec(part);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

type Side = { answers: Array<Record<string, unknown>>; calls: RecordedCall[]; conclusions: Array<{ observer_id: string; observed_id: string; content: string; session_id: string | null }> };

function view(c: ToolsCase, side: 'hermes' | 'gateway', s: Side): unknown {
  const a = s.answers.map((x) => (side === 'gateway' ? (errorAsHermes(x) as Record<string, unknown>) : x));
  const last = a[a.length - 1]!;
  const stored = s.conclusions.map((x) => ({ observer: x.observer_id, observed: x.observed_id, content: x.content, session: x.session_id })).sort((x, y) => x.content.localeCompare(y.content));
  const base = { touched: touched(s.calls) };
  switch (c.view) {
    case 'profile':
      return { ...base, card: side === 'hermes' ? hermesCard(last) : (last.card ?? null) };
    case 'reasoning': {
      const answer = side === 'hermes' ? (last.result === 'No result from Honcho.' ? null : last.result) : last.answer;
      return { ...base, answer: answer ?? null };
    }
    case 'context': {
      // Hermes' recent messages are `  [peer] text` lines; the gateway's {peer, content} (both the last five).
      if (side === 'hermes') {
        const sec = sections(String(last.result ?? ''));
        const messages = sec['Recent messages']?.split('\n').map((l) => l.trim()) ?? [];
        return { ...base, representation: sec.Representation ?? null, card: sec.Card ?? null, summary: sec.Summary ?? null, messages };
      }
      const card = last.card as string[] | undefined;
      const session = last.session as { summary?: string | null; messages?: Array<{ peer: string; content: string }> } | undefined;
      return {
        ...base,
        representation: last.representation ?? null,
        card: card && card.length > 0 ? card.join('\n') : null,
        summary: session?.summary ?? null,
        messages: (session?.messages ?? []).map((m) => `[${m.peer}] ${m.content}`),
      };
    }
    case 'search':
      return { ...base, found: side === 'hermes' ? (last.result === 'No relevant context found.' ? null : (last.result ?? last)) : 'excerpts' in last ? last.excerpts : last };
    case 'conclusions': {
      const listed = (x: Record<string, unknown>) => (Array.isArray(x.conclusions) ? (x.conclusions as Array<{ content: string }>).map((y) => y.content) : undefined);
      return { ...base, ok: a.map((x) => typeof x.error !== 'string'), listed: a.map(listed).filter((x) => x !== undefined), stored };
    }
    case 'error':
      return { ...base, error: typeof last.error === 'string', stored };
  }
}

async function hermesSide(list: ToolsCase[]): Promise<Answers> {
  const standins = new Map<string, HonchoStandin>();
  try {
    const input = {
      cases: await Promise.all(
        list.map(async (c) => {
          const standin = await startHonchoStandin();
          standins.set(c.id, standin);
          standin.seed(SEEDS[c.seed ?? 'default']!);
          const home = join(fx.ws, 'hermes', c.id);
          const cwd = join(home, c.cwd ?? PROJECT);
          mkdirSync(cwd, { recursive: true });
          writeFileSync(join(home, 'honcho.json'), JSON.stringify(hermesJson(standin.url, c)));
          return { id: c.id, url: standin.url, home, cwd, calls: withIds(c.hermes, standin) };
        }),
      ),
    };
    const answers = oracleAnswers(await runOracle('honcho_tools.py', input, join(fx.ws, 'hermes-driver-home'), {}, 300_000, honchoOracle().python));
    return new Map(
      list.map((c) => {
        const a = answers.get(c.id);
        if (!Array.isArray(a)) return [c.id, a];
        const standin = standins.get(c.id)!;
        assertFaithful(standin, `Hermes, case ${c.id}`);
        return [c.id, view(c, 'hermes', { answers: a as Array<Record<string, unknown>>, calls: standin.calls, conclusions: standin.conclusions('hermes') })];
      }),
    );
  } finally {
    for (const s of standins.values()) await s.close();
  }
}

/** A stand-in that could not answer as Honcho would (a route it lacks, a response off the OpenAPI document) voids the comparison. */
function assertFaithful(standin: HonchoStandin, who: string): void {
  const lacking = standin.calls.filter((c) => c.status === 501).map((c) => `${c.method} ${c.path}`);
  if (lacking.length > 0 || standin.violations.length > 0) throw new Error(`${who}: the Honcho stand-in lacks ${JSON.stringify(lacking)} / violations ${JSON.stringify(standin.violations)}`);
}

/** The case's honcho.json: the stand-in, user peer ada; Hermes' tools-only recall, its session made at start-up. */
function hermesJson(url: string, c: ToolsCase): Record<string, unknown> {
  return honchoJson(url, { recallMode: 'tools', initOnSessionStart: true, ...c.config });
}

compareSurface<ToolsCase>({
  surface: 'honcho_tools',
  cases,
  fixture: fx,
  hermes: hermesSide,
  gateway: {
    mcp: async (list) => {
      const out: Answers = new Map();
      for (const c of list) {
        const project = join(fx.ws, 'gateway', c.id, c.cwd ?? PROJECT);
        mkdirSync(project, { recursive: true });
        const m = await startMemoryGateway({ seed: SEEDS[c.seed ?? 'default']!, honcho: (url) => hermesJson(url, c), env: { HERMES_MCP_PROJECT_DIR: project, HERMES_MCP_HERMES_VERSION: hermes().version } });
        try {
          const client = await connect(m.gw.mcpUrl, 'modern');
          try {
            await viaBridge(client, 'memory_profile', {});
            await fetch(`${m.standin.url}/health`);
            const answers: Array<Record<string, unknown>> = [];
            for (const [tool, args] of withIds(c.gateway, m.standin)) answers.push((await viaBridge(client, tool, args)).data);
            assertFaithful(m.standin, `gateway, case ${c.id}`);
            out.set(c.id, view(c, 'gateway', { answers, calls: m.standin.calls, conclusions: m.standin.conclusions('hermes') }));
          } finally {
            await client.close();
          }
        } finally {
          await m.close();
        }
      }
      return out;
    },
  },
});
