import { satisfies } from '@renovatebot/pep440';
import { copyFileSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { parse } from 'yaml';
import { writeSessions, type MessageSpec, type SessionSpec } from '../fixtures/hermes-home.js';
import { hermes } from '../helpers/hermes.js';
import type { Check, CheckContext } from '../../scripts/divergence-predicates.js';
import { compareSurface, errorAsHermes, FIDELITY_DIR, loadCases, normalise, normalisedAnswers, oneByOne, oracleAnswers, runOracle, SurfaceFixture, valueAt, type Answers, type FidelityCase } from './harness.js';

// session_search against Hermes' own session_search (tools/session_search_tool.py), over MCP, on
// two copies of one state.db that Hermes' hermes_state.SessionDB wrote at test time
// (cases/session_search.sessions.yaml): several sources (cli, api_server, cron, a hidden
// subagent child and a hidden tool session), a compression lineage, compaction, a rewind, CJK text,
// multimodal content, tool calls, and contents full of FTS5 syntax characters; and what Hermes 0.22
// treats apart (kanban sessions, display_kind scaffolding, hidden sessions, /branch and /new-reset
// children, tool output past its index prefix, Latin text glued to CJK). The gateway answers as the
// compared Hermes does (its version, HERMES_MCP_HERMES_VERSION); a case using a parameter only
// newer Hermes has says so (`hermes:`, a PEP 440 specifier) and runs against those only.

/** A message a case names by [session id, index into that session's messages]. */
type MessageRef = [string, number];

interface SearchCase extends FidelityCase {
  args: Record<string, unknown> & { around_message_id?: number | MessageRef };
  /** The Hermes versions that have the case's parameters (PEP 440 specifier); every version when absent. */
  hermes?: string;
}

/**
 * A session as the data file gives it; `messages_generated` writes `count` messages (user/assistant
 * in turn), `huge_message` appends one message of `repeat` written `times` times, then `tail`.
 */
interface SessionData extends SessionSpec {
  messages_generated?: { count: number; anchor: number; anchor_content: string; content: string };
  huge_message?: { role: string; repeat: string; times: number; tail?: string };
}

function sessionsFromData(): SessionSpec[] {
  const data = parse(readFileSync(join(FIDELITY_DIR, 'cases', 'session_search.sessions.yaml'), 'utf8')) as SessionData[];
  return data.map(({ messages_generated: gen, huge_message: huge, ...spec }) => {
    const messages: MessageSpec[] = gen
      ? Array.from({ length: gen.count }, (_, i) => ({
          role: i % 2 === 0 ? 'user' : 'assistant',
          content: i === gen.anchor ? gen.anchor_content : gen.content.replace('{i}', String(i)),
        }))
      : [...(spec.messages ?? [])];
    if (huge) messages.push({ role: huge.role, content: huge.repeat.repeat(huge.times) + (huge.tail ?? '') });
    return { ...spec, messages };
  });
}

const fx = new SurfaceFixture('ss');
const cases = loadCases<SearchCase>('session_search').filter((c) => c.hermes === undefined || satisfies(hermes().version, c.hermes));
const sessions = sessionsFromData();
let built = '';
let written: Record<string, number[]> = {};
let hermesAnswers: Answers = new Map();

function argsOf(c: SearchCase): Record<string, unknown> {
  const ref = c.args.around_message_id;
  if (!Array.isArray(ref)) return c.args;
  const id = written[ref[0]]?.[ref[1]];
  if (id === undefined) throw new Error(`${c.id}: no message ${ref[1]} in session ${ref[0]}`);
  return { ...c.args, around_message_id: id };
}

const norm = (v: unknown) => normalise(errorAsHermes(v), {});

// What the divergences (divergences/session_search.yaml) say the gateway answers where it differs,
// computed from the case, Hermes' answer and the session fixture.

type Message = { id: number; role?: string; content?: unknown };
const caseOf = (id: string): SearchCase => cases.find((c) => c.id === id)!;
/** The dotted path one segment up from `field`. */
const up = (field: string): string => field.split('.').slice(0, -1).join('.');
/** The ids of the messages the fixture took back (rewind_to), by session. */
function rewoundIds(sessionId: string): Set<number> {
  const spec = sessions.find((s) => s.id === sessionId);
  return new Set(spec?.rewind_to === undefined ? [] : (written[sessionId] ?? []).slice(spec.rewind_to));
}
/** A content cut as the gateway cuts it (shaper.ts cutCodePoints): its first `max` code points and an ellipsis. */
const cut = (text: string, max: number): string => `${[...text].slice(0, max).join('')}…`;
/** The cap a content is cut to: the answer's content_limit_chars, else a discover window's 4000 characters. */
function contentLimit(c: CheckContext): number | undefined {
  const limit = (c.gatewayAnswer as { content_limit_chars?: unknown }).content_limit_chars;
  if (typeof limit === 'number') return limit;
  return /^results\.\d+\.messages\.\d+\.content$/.test(c.field) ? 4000 : undefined;
}
/** Where the query's words are marked in the snippet of the message they find. */
const MARKED: Record<string, [string, string]> = {
  'fts-percent': ['100%', '>>>100<<<%'],
  'fts-at-sign': ['bob@example.com', '>>>bob<<<@>>>example.com<<<'],
};
const isHandoff = (m: Message) => typeof m.content === 'string' && (m.content.startsWith('[CONTEXT COMPACTION') || m.content.startsWith('[CONTEXT SUMMARY]:'));

const checks: Record<string, Check> = {
  /** Hermes' window without the messages the fixture rewound. */
  'rewound-messages-removed': (c) => {
    const result = valueAt(c.gatewayAnswer, up(c.field)) as { session_id?: string };
    const rewound = rewoundIds(String(result.session_id));
    return Array.isArray(c.hermes) && rewound.size > 0 && isDeepStrictEqual(c.gateway, (c.hermes as Message[]).filter((m) => !rewound.has(m.id)));
  },
  /** Hermes' count less the rewound messages after the hit. */
  'rewound-messages-not-counted': (c) => {
    const result = valueAt(c.gatewayAnswer, up(c.field)) as { session_id?: string; match_message_id?: number };
    const after = [...rewoundIds(String(result.session_id))].filter((id) => id > Number(result.match_message_id)).length;
    return typeof c.hermes === 'number' && after > 0 && c.gateway === c.hermes - after;
  },
  /** The text parts of Hermes' parts list, joined by a space. */
  'text-parts-joined': (c) => {
    if (!Array.isArray(c.hermes)) return false;
    const texts = (c.hermes as Array<{ type?: string; text?: string }>).filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text!);
    return texts.length > 0 && c.gateway === texts.join(' ').trim();
  },
  /** Hermes' content cut to the limit that applies (an ellipsis marking the cut). */
  'cut-to-content-limit': (c) => {
    const limit = contentLimit(c);
    return typeof c.hermes === 'string' && limit !== undefined && [...c.hermes].length > limit && c.gateway === cut(c.hermes, limit);
  },
  /** The length of Hermes' whole content, in code points. */
  'hermes-content-length': (c) => {
    const content = valueAt(c.hermesAnswer, `${up(c.field)}.content`);
    return typeof content === 'string' && c.gateway === [...content].length;
  },
  /** Hermes' bookends without the compaction handoff. */
  'compaction-handoff-left-out': (c) => Array.isArray(c.hermes) && (c.hermes as Message[]).some(isHandoff) && isDeepStrictEqual(c.gateway, (c.hermes as Message[]).filter((m) => !isHandoff(m))),
  /** Hermes' own read of the same session by its bare id (the read-cli case). */
  'as-hermes-reads-the-bare-id': (c) => {
    const bare = hermesAnswers.get('read-cli');
    return caseOf('read-cli').args.session_id === String(caseOf(c.caseId).args.session_id).replace(/^@session:default\//, '') && isDeepStrictEqual(c.gateway, valueAt(bare, c.field));
  },
  /** The message Hermes finds for under_score_name, with this query's words marked instead. */
  'finds-the-punctuated-message': (c) => {
    const marked = MARKED[c.caseId];
    const found = (hermesAnswers.get('fts-underscore') as { results?: Array<{ snippet: string }> } | undefined)?.results;
    if (!marked || !found || found.length !== 1) return false;
    const expected = found.map((r) => ({ ...r, snippet: r.snippet.replace('>>>under_score_name<<<', 'under_score_name').replace(marked[0], marked[1]) }));
    return isDeepStrictEqual(c.gateway, expected);
  },
  /** The session_id / around_message_id the case asked for. */
  'the-asked-session-id': (c) => c.gateway === argsOf(caseOf(c.caseId)).session_id,
  'the-asked-message-id': (c) => c.gateway === argsOf(caseOf(c.caseId)).around_message_id,
};

compareSurface<SearchCase>({
  surface: 'session_search',
  cases,
  fixture: fx,
  async setUp() {
    built = fx.dir('db');
    written = writeSessions(built, sessions).messages;
    const home = fx.hermesHome('gw');
    copyFileSync(join(built, 'state.db'), join(home, 'state.db'));
    await fx.gateway({ home, roots: home });
  },
  async hermes(list) {
    // SessionDB may write on open: Hermes gets a copy of its own.
    const home = fx.hermesHome('hermes');
    copyFileSync(join(built, 'state.db'), join(home, 'state.db'));
    const answers = oracleAnswers(await runOracle('session_search.py', { cases: list.map((c) => ({ id: c.id, args: argsOf(c) })) }, home));
    hermesAnswers = normalisedAnswers(answers, norm);
    return hermesAnswers;
  },
  gateway: {
    mcp: (list) => oneByOne(list, async (c) => norm(await fx.gw.call('session_search', argsOf(c)))),
  },
  checks,
});
