import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homeWithCron, jobsPath } from '../fixtures/cron-home.js';
import { startEgressTrap, type EgressTrap } from '../helpers/hermes.js';
import { tempDirs } from '../helpers/temp.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, runOracle, type Answers, type FidelityCase } from './harness.js';
import { startFidelityGateway, type FidelityGateway } from './workspace.js';

// cronjob against Hermes' own cron code (tools/cronjob_tools.py cronjob, cron/jobs.py), over MCP.
// Each case's jobs are written by Hermes' cron.jobs into a store of its own (drivers/cronjob.py);
// Hermes' cronjob tool answers the case's call on that store, and the gateway the same call on a
// byte-for-byte copy of it. Compared, after the one normalisation below: the answer, the jobs.json
// text each wrote (Python's json.dump indent=2 bytes), and what Hermes' cron.jobs reads back from
// each file (load_jobs records, the list tool's formatting, get_due_jobs, compute_next_run), so a
// record the gateway writes is checked by the code that will schedule it.

interface CronCase extends FidelityCase {
  setup?: Array<Record<string, unknown>>;
  call: Record<string, unknown>;
  /** config.yaml `timezone` of both homes (Hermes' clock, naive timestamps, cron evaluation); none when absent. */
  timezone?: string;
  /** Hermes runs its agent for this call (its cronjob run): the only case allowed to try the network, which the egress trap refuses. */
  agent_runs?: boolean;
}

/** What drivers/cronjob.py answers for a case in its "act" phase. */
interface HermesAct {
  before: string | null;
  ids: Record<string, string>;
  t_call: number;
  answer: unknown;
  file: string | null;
  readback: unknown;
}

const MUTATIONS = new Set(['create', 'update', 'pause', 'resume', 'remove', 'run', 'run_now', 'trigger']);
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:[+-]\d{2}:\d{2}|Z)?/g;
const JOB_ID = /\b[0-9a-f]{12}\b/g;

const temp = tempDirs();
const cases = loadCases<CronCase>('cronjob');
let ws = '';

/** One Hermes timezone (config.yaml `timezone`; '' for none): Hermes' home and the gateway's, each built by Hermes' config code. */
interface Zone {
  hermesHome: string;
  gwHome: string;
  gw: FidelityGateway;
}
const zones = new Map<string, Zone>();
const zoneOf = (c: CronCase) => zones.get(c.timezone ?? '')!;
/** Hermes' run action runs its agent: anything it sends off the host is caught here, not sent. */
let trap: EgressTrap | undefined;
const acted = new Map<string, HermesAct>();

/** `<ws>` in any string of `value` as the gateway's root; "@<name>" as that job's id. */
function resolved<T>(value: T, ids: Record<string, string> = {}): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith('@') && v.slice(1) in ids ? ids[v.slice(1)] : v.split('<ws>').join(ws);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * Times and ids that differ only because the two sides ran seconds apart: a timestamp the setup
 * wrote (in `before`) or a whole-minute one (cron and ISO schedules) stays as it is; any other is
 * its distance from the call, to the minute (`<now+30m>`). A job id the setup did not make is
 * `<new-id>`. Applied to strings, inside the jobs.json text, and to keys.
 */
function stabilised(value: unknown, before: string | null, tCall: number, known: Set<string>): unknown {
  const text = (s: string) =>
    s
      .replace(ISO, (ts) => {
        if (before?.includes(ts)) return ts;
        if (/T\d{2}:\d{2}:00(?:[+-]|Z|$)/.test(ts)) return ts;
        const m = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(.*)$/.exec(ts)!;
        const at = Date.parse(`${m[1]}.${(m[2] ?? '0').padEnd(3, '0').slice(0, 3)}${m[3] || ''}`) / 1000;
        const minutes = Math.round((at - tCall) / 60);
        return `<now${minutes < 0 ? '-' : '+'}${Math.abs(minutes)}m>`;
      })
      .replace(JOB_ID, (id) => (known.has(id) ? id : '<new-id>'));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), walk(x)]));
    return v;
  };
  return normalise(walk(value), { replace: { [ws]: '<ws>' } });
}

function writeStore(home: string, text: string | null): void {
  const path = jobsPath(home);
  if (text === null) rmSync(path, { force: true });
  else writeFileSync(path, text);
}

/** The cases of each zone, in order. */
function byZone(list: CronCase[]): Array<[Zone, CronCase[]]> {
  const groups = new Map<Zone, CronCase[]>();
  for (const c of list) groups.set(zoneOf(c), [...(groups.get(zoneOf(c)) ?? []), c]);
  return [...groups];
}

compareSurface<CronCase>({
  surface: 'cronjob',
  cases,
  async setUp() {
    ws = temp.make('hmcp-fid-cron-ws-');
    mkdirSync(join(ws, 'proj'));
    for (const tz of new Set(cases.map((c) => c.timezone ?? ''))) {
      const options = tz ? { timezone: tz } : {};
      const hermesHome = homeWithCron(options);
      const gwHome = homeWithCron(options);
      zones.set(tz, { hermesHome, gwHome, gw: await startFidelityGateway(gwHome, ws, { env: { HERMES_MCP_CRONJOB_MUTATIONS: 'on' } }) });
    }
    trap = await startEgressTrap();
  },
  async tearDown() {
    for (const z of zones.values()) {
      await z.gw.close();
      for (const h of [z.hermesHome, z.gwHome]) rmSync(h, { recursive: true, force: true });
    }
    await trap?.close();
    temp.removeAll();
  },
  async hermes(list) {
    const root = temp.make('hmcp-fid-cron-hermes-');
    type Acted = Array<{ id: string; result?: HermesAct; raised?: string }>;
    const act = async (some: CronCase[]): Promise<Acted> => {
      const out: Acted = [];
      for (const [zone, group] of byZone(some)) {
        const input = { phase: 'act', root, cases: group.map((c) => resolved({ id: c.id, setup: c.setup ?? [], call: c.call })) };
        out.push(...(await runOracle<Acted>('cronjob.py', input, zone.hermesHome, trap!.env)));
      }
      return out;
    };
    const answers = await act(list.filter((c) => !c.agent_runs));
    if (trap!.attempts.length > 0) throw new Error(`Hermes' cron code tried to leave the host: ${trap!.attempts.join('; ')}`);
    // Hermes' run starts its agent, whose provider look-ups the trap refuses (nothing is sent).
    answers.push(...(await act(list.filter((c) => c.agent_runs))));
    const out: Answers = new Map();
    for (const a of answers) {
      if (!a.result) throw new Error(`Hermes' cron code raised on ${a.id}: ${a.raised}`);
      acted.set(a.id, a.result);
      const { before, ids, t_call, answer, file, readback } = a.result;
      out.set(a.id, stabilised({ answer, file, readback }, before, t_call, new Set(Object.values(ids))));
    }
    return out;
  },
  gateway: {
    async mcp(list) {
      const root = temp.make('hmcp-fid-cron-gw-');
      const raw = new Map<string, { answer: unknown; file: string | null; tCall: number }>();
      await oneByOne(list, async (c) => {
        const { before, ids } = acted.get(c.id)!;
        const { gw, gwHome } = zoneOf(c);
        writeStore(gwHome, before);
        const args = resolved(c.call, ids);
        if (MUTATIONS.has(String(args.action))) args.confirm = true;
        const tCall = Date.now() / 1000;
        const answer = errorAsHermes(await gw.call('cronjob', args));
        const file = existsSync(jobsPath(gwHome)) ? readFileSync(jobsPath(gwHome), 'utf8') : null;
        if (file !== null) {
          mkdirSync(join(root, c.id, 'cron'), { recursive: true });
          copyFileSync(jobsPath(gwHome), join(root, c.id, 'cron', 'jobs.json'));
        }
        raw.set(c.id, { answer, file, tCall });
        return undefined;
      });
      const readbacks: Array<{ id: string; result?: { readback: unknown }; raised?: string }> = [];
      for (const [zone, group] of byZone(list)) {
        readbacks.push(...(await runOracle<typeof readbacks>('cronjob.py', { phase: 'readback', root, cases: group.map((c) => ({ id: c.id })) }, zone.hermesHome, trap!.env)));
      }
      const out: Answers = new Map();
      for (const r of readbacks) {
        const { before, ids } = acted.get(r.id)!;
        const { answer, file, tCall } = raw.get(r.id)!;
        const readback = r.result ? r.result.readback : { raised: r.raised };
        out.set(r.id, stabilised({ answer, file, readback }, before, tCall, new Set(Object.values(ids))));
      }
      return out;
    },
  },
});
