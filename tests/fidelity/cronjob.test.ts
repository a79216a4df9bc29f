import { satisfies } from '@renovatebot/pep440';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { homeWithCron, jobsPath } from '../fixtures/cron-home.js';
import { startScriptedModel, type ModelRequest, type ScriptedModel } from '../fixtures/scripted-model.js';
import { lastUserText } from '../helpers/bridge.js';
import { hermes, startEgressTrap, type EgressTrap } from '../helpers/hermes.js';
import type { Check } from '../../scripts/divergence-predicates.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, runOracle, SurfaceFixture, type Answers, type FidelityCase } from './harness.js';
import { startFidelityGateway, type FidelityGateway } from './workspace.js';

// cronjob against Hermes' own cron code (tools/cronjob_tools.py cronjob, cron/jobs.py), over MCP.
// Each case's jobs are written by Hermes' cron.jobs into a store of its own (drivers/cronjob.py);
// Hermes' cronjob tool answers the case's call on that store, and the gateway the same call on a
// byte-for-byte copy of it. Compared, after the one normalisation below: the answer, the jobs.json
// text each wrote (Python's json.dump indent=2 bytes), and what Hermes' cron.jobs reads back from
// each file (load_jobs records, the list tool's formatting, get_due_jobs, compute_next_run), so a
// record the gateway writes is checked by the code that will schedule it.
//
// Hermes' run action runs its agent at once (cron/scheduler.py run_one_job). For those cases
// (`agent_runs`) both homes' model is a scripted OpenAI-compatible server on loopback, which
// answers the job's agent turn with a final text: the run is real and completes, the tests below
// check that the model received the job's prompt and that Hermes saved the scripted answer as the
// job's output, and that no case, these included, tried to leave the host.

interface CronCase extends FidelityCase {
  setup?: Array<Record<string, unknown>>;
  call: Record<string, unknown>;
  /** config.yaml `timezone` of both homes (Hermes' clock, naive timestamps, cron evaluation); none when absent. */
  timezone?: string;
  /** Hermes runs its agent for this call (its cronjob run): both homes' model is then the scripted model server. */
  agent_runs?: boolean;
  /** The Hermes versions that have what the case calls (a PEP 440 specifier); compared with those only. */
  hermes?: string;
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

const fx = new SurfaceFixture('cron');
const cases = loadCases<CronCase>('cronjob').filter((c) => c.hermes === undefined || satisfies(hermes().version, c.hermes));

/**
 * One Hermes configuration (config.yaml `timezone`, '' for none, and for agent_runs cases the
 * scripted model): Hermes' home and the gateway's, each built by Hermes' config code.
 */
interface Zone {
  hermesHome: string;
  gwHome: string;
  gw: FidelityGateway;
}
const zones = new Map<string, Zone>();
const zoneKey = (c: CronCase) => `${c.agent_runs ? 'agent' : ''}|${c.timezone ?? ''}`;
const zoneOf = (c: CronCase) => zones.get(zoneKey(c))!;
/** Anything a Hermes process sends off the host is caught here, not sent: every case must leave it empty. */
let trap: EgressTrap | undefined;
/** The model of the agent_runs cases' homes. */
let model: ScriptedModel | undefined;
/** Where Hermes' cron code kept each case's store (<root>/<case id>/cron). */
let hermesRoot = '';
const acted = new Map<string, HermesAct>();

/** The scripted final answer of an agent_runs case's job. */
const finalAnswer = (c: CronCase) => `Walrus tally for ${c.id}: forty-two.`;
/** The prompt of the job an agent_runs case runs (the setup's create of the job its call names). */
function jobPrompt(c: CronCase): string {
  const name = String(c.call.job_id ?? '').replace(/^@/, '');
  const created = (c.setup ?? []).map((s) => s.create as { name?: string; prompt?: string } | undefined).find((s) => s?.name === name);
  if (!created?.prompt) throw new Error(`${c.id}: agent_runs needs a setup create of the job its call names`);
  return created.prompt;
}
/** Hermes' agent turn (it sends its tools) whose user message carries `prompt` (inside Hermes' cron framing). */
const agentTurnWith = (prompt: string) => (r: ModelRequest) => Array.isArray(r.body?.tools) && lastUserText(r).includes(prompt);

/** `<ws>` in any string of `value` as the gateway's root; "@<name>" as that job's id. */
function resolved<T>(value: T, ids: Record<string, string> = {}): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith('@') && v.slice(1) in ids ? ids[v.slice(1)] : v.split('<ws>').join(fx.ws);
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
  return normalise(walk(value), { replace: { [fx.ws]: '<ws>' } });
}

/**
 * What is compared of a case, stabilised from the time of the call, but for the next runs the
 * readback computed for interval jobs that never ran (compute_next_run counts those from the
 * moment it is asked), which are stabilised from the time they were read: the gateway's readback
 * runs after all of its calls, Hermes' right after each.
 */
function compared(answer: unknown, file: string | null, readback: unknown, before: string | null, tCall: number, known: Set<string>): unknown {
  const { at, next_run, ...rest } = (readback ?? {}) as { at?: number; next_run?: Record<string, unknown> } & Record<string, unknown>;
  const stable = stabilised({ answer, file, readback: rest }, before, tCall, known) as { readback: Record<string, unknown> };
  if (next_run !== undefined) {
    const records = Array.isArray(rest.jobs) ? (rest.jobs as Array<Record<string, unknown>>) : [];
    const fromNow = (id: string) => {
      const job = records.find((j) => String(j.id) === id);
      return (job?.schedule as { kind?: string } | undefined)?.kind === 'interval' && !job?.last_run_at;
    };
    stable.readback.next_run = Object.fromEntries(
      Object.entries(next_run).map(([id, value]) => [stabilised(id, before, tCall, known) as string, stabilised(value, before, fromNow(id) && at !== undefined ? at : tCall, known)]),
    );
  }
  return stable;
}

/** Hermes' answers, compared (the checks below read other cases' answers). */
let hermesAnswers: Answers = new Map();
/** The id of the job a case's call names ("@<name>"). */
const calledJob = (caseId: string): string | undefined => {
  const c = cases.find((x) => x.id === caseId);
  return acted.get(caseId)?.ids[String(c?.call.job_id ?? '').replace(/^@/, '')];
};

// What the divergences (divergences/cronjob.yaml) say the gateway answers where it differs,
// computed from the case and Hermes' answers.
type JobRecord = Record<string, unknown> & { id?: string; repeat?: { completed?: number } };
const checks: Record<string, Check> = {
  /** Hermes' own guard refusal (its answer to creating a job with a lifecycle command), with the gateway's code. */
  'lifecycle-guard-refusal': (c) => {
    const refused = (hermesAnswers.get('create-lifecycle-restart') as { answer?: Record<string, unknown> } | undefined)?.answer;
    return refused?.success === false && typeof refused.error === 'string' && isDeepStrictEqual(c.gateway, { ...refused, code: 'CRONJOB_PROMPT_BLOCKED' });
  },
  /** The jobs.json the case's setup wrote, unchanged. */
  'store-unchanged': (c) => {
    const act = acted.get(c.caseId);
    return act?.before != null && c.gateway === stabilised(act.before, act.before, act.t_call, new Set(Object.values(act.ids)));
  },
  /** Hermes' get_due_jobs finds the job the call named (and only it) due. */
  'the-run-job-is-due': (c) => calledJob(c.caseId) !== undefined && isDeepStrictEqual(c.gateway, [calledJob(c.caseId)]),
  /**
   * Hermes' jobs.json after its run with the run undone and the job triggered instead: the job due
   * now (next_run_at, and manual_run_at where Hermes' trigger_job sets it), no last run, one
   * completed repeat fewer, no fire claim (which only Hermes' own run takes), and the store
   * updated now (Hermes' is updated when its run ends).
   */
  'queued-not-run': (c) => {
    if (typeof c.gateway !== 'string' || typeof c.hermes !== 'string') return false;
    const id = calledJob(c.caseId);
    const expected = JSON.parse(c.hermes) as { jobs: JobRecord[]; updated_at?: unknown };
    const job = expected.jobs.find((j) => j.id === id);
    if (!job?.repeat || typeof job.repeat.completed !== 'number') return false;
    job.repeat.completed -= 1;
    Object.assign(job, { next_run_at: '<now+0m>', last_run_at: null, last_status: null });
    delete job.fire_claim;
    if ('updated_at' in expected) expected.updated_at = '<now+0m>';
    if (satisfies(hermes().version, '>=0.22.2')) Object.assign(job, { manual_run_at: '<now+0m>', manual_run_prompt: null });
    return isDeepStrictEqual(JSON.parse(c.gateway), expected);
  },
};

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
  fixture: fx,
  async setUp() {
    mkdirSync(join(fx.ws, 'proj'));
    // A script a prompt may name: Hermes 0.22's lifecycle guard reads what a command-shaped prompt runs.
    writeFileSync(join(fx.ws, 'restart.sh'), 'hermes gateway restart\n');
    const running = cases.filter((c) => c.agent_runs);
    // One turn per job run: its agent turn answered with the final text (nothing else is scripted).
    if (running.length > 0) model = await startScriptedModel({ turns: running.map((c) => ({ when: agentTurnWith(jobPrompt(c)), text: finalAnswer(c) })) });
    for (const c of cases) {
      const key = zoneKey(c);
      if (zones.has(key)) continue;
      const options = {
        ...(c.timezone ? { timezone: c.timezone } : {}),
        // The scripted server as a custom OpenAI-compatible provider; an explicit context length, so
        // the agent does not look the model up on OpenRouter.
        ...(c.agent_runs ? { model: { provider: 'custom', base_url: model!.baseUrl, default: 'scripted-model', context_length: 131072 } } : {}),
      };
      const hermesHome = homeWithCron(options);
      const gwHome = homeWithCron(options);
      // The gateway fronts the compared Hermes (its interpreter), whose own cron code makes its changes.
      zones.set(key, { hermesHome, gwHome, gw: await startFidelityGateway(gwHome, fx.ws, { env: { HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_AGENT_PYTHON: hermes().python } }) });
    }
    trap = await startEgressTrap();
  },
  async tearDown() {
    for (const z of zones.values()) {
      await z.gw.close();
      for (const h of [z.hermesHome, z.gwHome]) rmSync(h, { recursive: true, force: true });
    }
    await trap?.close();
    await model?.close();
  },
  async hermes(list) {
    const root = fx.dir('hermes');
    hermesRoot = root;
    type Acted = Array<{ id: string; result?: HermesAct; raised?: string }>;
    const answers: Acted = [];
    for (const [zone, group] of byZone(list)) {
      const input = { phase: 'act', root, cases: group.map((c) => resolved({ id: c.id, setup: c.setup ?? [], call: c.call })) };
      answers.push(...(await runOracle<Acted>('cronjob.py', input, zone.hermesHome, trap!.env)));
    }
    const out: Answers = new Map();
    for (const a of answers) {
      if (!a.result) throw new Error(`Hermes' cron code raised on ${a.id}: ${a.raised}`);
      acted.set(a.id, a.result);
      const { before, ids, t_call, answer, file, readback } = a.result;
      out.set(a.id, compared(answer, file, readback, before, t_call, new Set(Object.values(ids))));
    }
    hermesAnswers = out;
    return out;
  },
  gateway: {
    async mcp(list) {
      const root = fx.dir('gw');
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
        out.set(r.id, compared(answer, file, readback, before, tCall, new Set(Object.values(ids))));
      }
      return out;
    },
  },
  checks,
});

// Hermes' run really ran: its agent sent the job's prompt to the scripted model, which answered the
// scripted final text, and Hermes recorded the run as a success and saved that text as the job's
// output (cron/output/<job id>/*.md of the case's store).
for (const c of cases.filter((x) => x.agent_runs)) {
  test(`cronjob: ${c.id} ran Hermes' agent on the scripted model`, () => {
    const prompt = jobPrompt(c);
    const turns = model!.chatRequests().filter(agentTurnWith(prompt));
    assert.equal(turns.length, 1, `the model received the prompt of ${c.id}'s job ${turns.length} times`);
    const { answer, ids } = acted.get(c.id)!;
    const job = (answer as { job?: Record<string, unknown> }).job ?? {};
    assert.deepEqual([job.executed, job.execution_success, job.last_status], [true, true, 'ok'], JSON.stringify(answer));
    const jobId = ids[String(c.call.job_id).replace(/^@/, '')]!;
    const outputs = join(hermesRoot, c.id, 'cron', 'output', jobId);
    const saved = existsSync(outputs) ? readdirSync(outputs).map((f) => readFileSync(join(outputs, f), 'utf8')) : [];
    assert.equal(saved.length, 1, `Hermes saved ${saved.length} outputs of ${c.id}'s job`);
    assert.ok(saved[0]!.includes(prompt) && saved[0]!.includes(finalAnswer(c)), saved[0]);
  });
}

test('cronjob: no case tried to leave the host (the agent runs included)', () => {
  assert.ok(trap, 'the egress trap was never started');
  assert.deepEqual(trap.attempts, []);
  // Every request the agent made was scripted: no chat completion fell through to the fallback.
  assert.deepEqual(model?.unscripted.map((r) => lastUserText(r).slice(0, 200)) ?? [], []);
  assert.equal(model?.pending() ?? 0, 0);
});
