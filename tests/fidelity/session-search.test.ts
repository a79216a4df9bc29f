import { satisfies } from '@renovatebot/pep440';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { writeSessions, type MessageSpec, type SessionSpec } from '../fixtures/hermes-home.js';
import { hermes } from '../helpers/hermes.js';
import { compareSurface, errorAsHermes, FIDELITY_DIR, loadCases, normalise, normalisedAnswers, oneByOne, oracleAnswers, runOracle, SurfaceFixture, type FidelityCase } from './harness.js';

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
let built = '';
let written: Record<string, number[]> = {};

function argsOf(c: SearchCase): Record<string, unknown> {
  const ref = c.args.around_message_id;
  if (!Array.isArray(ref)) return c.args;
  const id = written[ref[0]]?.[ref[1]];
  if (id === undefined) throw new Error(`${c.id}: no message ${ref[1]} in session ${ref[0]}`);
  return { ...c.args, around_message_id: id };
}

const norm = (v: unknown) => normalise(errorAsHermes(v), {});

compareSurface<SearchCase>({
  surface: 'session_search',
  cases,
  fixture: fx,
  async setUp() {
    built = fx.dir('db');
    written = writeSessions(built, sessionsFromData()).messages;
    const home = fx.hermesHome('gw');
    copyFileSync(join(built, 'state.db'), join(home, 'state.db'));
    await fx.gateway({ home, roots: home });
  },
  async hermes(list) {
    // SessionDB may write on open: Hermes gets a copy of its own.
    const home = fx.hermesHome('hermes');
    copyFileSync(join(built, 'state.db'), join(home, 'state.db'));
    const answers = oracleAnswers(await runOracle('session_search.py', { cases: list.map((c) => ({ id: c.id, args: argsOf(c) })) }, home));
    return normalisedAnswers(answers, norm);
  },
  gateway: {
    mcp: (list) => oneByOne(list, async (c) => norm(await fx.gw.call('session_search', argsOf(c)))),
  },
});
