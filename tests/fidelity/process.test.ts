import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { satisfies } from '@renovatebot/pep440';
import { viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, SurfaceFixture, type FidelityCase } from './harness.js';
import { writeFiles, type FileSpec } from './workspace.js';

// process_manage against Hermes' `process` tool (tools/process_registry.py _handle_process). Hermes'
// process is started by its terminal (background=true); the gateway's direct terminal never
// backgrounds, so its process is started the way the gateway starts background work: a job
// (job_prepare + job_start) in a session of the case's own, found by action=list. Steps run first
// (their answers dropped), then the compared action; each side's process id reads `<proc>`. A case
// with `hermes:` is compared only with the Hermes versions it names.

type Action = Record<string, unknown>;
type Step = Action | { sleep: number };

interface ProcessCase extends FidelityCase {
  files?: Record<string, FileSpec>;
  command: string;
  /** Run on a pseudo-terminal (Hermes: terminal pty=true; the gateway: a job prepared with pty: true). */
  pty?: boolean;
  steps?: Step[];
  action: Action;
  /** Compared only with the Hermes versions this PEP 440 specifier names (the action is not in the others' schema). */
  hermes?: string;
}

interface Answer {
  process: string;
  result: unknown;
}

const fx = new SurfaceFixture('proc');
const cases = loadCases<ProcessCase>('process').filter((c) => c.hermes === undefined || satisfies(hermes().version, c.hermes));

const dirOf = (c: ProcessCase) => join(fx.ws, c.id);
// Hermes' clamp on a wait (TERMINAL_TIMEOUT) set to the gateway's processWaitMaxSeconds.
const WAIT_MAX_SECONDS = 25;

/** The action's arguments with the case's process filled in (`session_id: null` leaves it out; `{prefix: n}`: the id's first n characters). */
function withProcess(action: Action, id: string): Action {
  if (!('session_id' in action)) return { ...action, session_id: id };
  const { session_id, ...rest } = action;
  if (session_id === null) return rest;
  if (typeof session_id === 'object' && typeof (session_id as { prefix?: unknown }).prefix === 'number') return { ...rest, session_id: id.slice(0, (session_id as { prefix: number }).prefix) };
  return action;
}

/** A wait's note says how long the process has run: a number of seconds that differs from run to run. */
function withoutUptime(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || typeof (v as { timeout_note?: unknown }).timeout_note !== 'string') return v;
  return { ...v, timeout_note: (v as { timeout_note: string }).timeout_note.replace(/ Uptime: \d+s\./, ' Uptime: <n>s.') };
}

/** How many characters of its process id the case's action names (`session_id: {prefix: n}`), if it does. */
function prefixOf(c: ProcessCase): number | undefined {
  const id = c.action.session_id;
  return typeof id === 'object' && id !== null && typeof (id as { prefix?: unknown }).prefix === 'number' ? (id as { prefix: number }).prefix : undefined;
}

/** The process id as `<proc>`, and the prefix of it the case names as `<proc-prefix>`. */
function processIds(id: string, c: ProcessCase): Record<string, string> {
  const n = prefixOf(c);
  return { [id]: '<proc>', ...(n !== undefined ? { [id.slice(0, n)]: '<proc-prefix>' } : {}) };
}

const norm = (a: Answer, c: ProcessCase) =>
  withoutUptime(normalise(errorAsHermes(a.result), { replace: { [fx.ws]: '<ws>', ...processIds(a.process, c) }, volatile: ['pid', 'uptime_seconds', 'started_at', 'exited_at'] }));
const caseById = new Map(cases.map((c) => [c.id, c]));
/** The job each case's process was started by (the gateway's side), for `{check: job-of-case}`. */
const jobOfCase = new Map<string, string>();

/**
 * The stable code of a process_manage error, from Hermes' answer to the same call: its status
 * not_found / already_exited, or its "session_id is required" and handoff refusals.
 */
function codeOfHermesError(h: unknown): string | undefined {
  if (typeof h !== 'object' || h === null) return undefined;
  const { status, error } = h as { status?: unknown; error?: unknown };
  if (status === 'not_found') return 'PROCESS_NOT_FOUND';
  if (status === 'already_exited') return 'PROCESS_NOT_RUNNING';
  if (status === undefined && typeof error === 'string' && (/^session_id is required for \w+$/.test(error) || error.startsWith('handoff is only available to a running subagent'))) return 'INVALID_ARGUMENTS';
  return undefined;
}

/** The UTF-8 bytes a write or submit case's action sends (submit adds the newline). */
function bytesSent(c: ProcessCase | undefined): number | undefined {
  if (c === undefined || typeof c.action.data !== 'string') return undefined;
  if (c.action.action === 'write') return Buffer.byteLength(c.action.data, 'utf8');
  if (c.action.action === 'submit') return Buffer.byteLength(`${c.action.data}\n`, 'utf8');
  return undefined;
}

compareSurface<ProcessCase>({
  surface: 'process',
  cases,
  fixture: fx,
  async setUp() {
    for (const c of cases) writeFiles(dirOf(c), c.files);
    await fx.gateway({ limits: { processWaitMaxSeconds: WAIT_MAX_SECONDS } });
  },
  async hermes(list) {
    const input = { cases: list.map((c) => ({ id: c.id, dir: dirOf(c), command: c.command, pty: c.pty === true, steps: c.steps ?? [], action: c.action })) };
    const env = { TERMINAL_ENV: 'local', TERMINAL_CWD: fx.ws, TERMINAL_TIMEOUT: String(WAIT_MAX_SECONDS) };
    const answers = await fx.driver('process.py', input, env, 600_000);
    return new Map([...answers].map(([id, a]) => [id, a !== null && typeof a === 'object' && 'process' in a ? norm(a as Answer, caseById.get(id)!) : a]));
  },
  gateway: {
    mcp: (list) =>
      oneByOne(list, async (c) => {
        const client = fx.gw.client;
        const token = (await viaBridge(client, 'session_open')).data.session_token as string;
        const prepared = await viaBridge(client, 'job_prepare', { command: c.command, workdir: dirOf(c), ...(c.pty ? { pty: true } : {}) }, token);
        if (prepared.isError) throw new Error(`job_prepare failed for ${c.id}: ${JSON.stringify(prepared.data)}`);
        const prep = prepared.data;
        const job = { job_id: prep.job_id as string, recovery_token: prep.recovery_token as string };
        jobOfCase.set(c.id, job.job_id);
        const started = await viaBridge(client, 'job_start', job, token);
        if (started.isError) throw new Error(`job_start failed for ${c.id}: ${JSON.stringify(started.data)}`);
        const listed = (await viaBridge(client, 'process_manage', { action: 'list' }, token)).data.processes as Array<{ session_id: string; job_id?: string }>;
        const id = listed.find((p) => p.job_id === job.job_id)?.session_id;
        if (!id) throw new Error(`no process for the job of ${c.id}: ${JSON.stringify(listed)}`);
        const act = async (action: Action) => (await viaBridge(client, 'process_manage', withProcess(action, id), token)).data;
        try {
          for (const step of c.steps ?? []) {
            if ('sleep' in step && typeof step.sleep === 'number') await sleep(step.sleep * 1000);
            else await act(step);
          }
          return norm({ process: id, result: await act(c.action) }, c);
        } finally {
          await act({ action: 'kill' });
          await viaBridge(client, 'session_close', {}, token).catch(() => undefined);
        }
      }),
  },
  checks: {
    'code-of-hermes-error': ({ field, gateway: g, hermesAnswer }) => field === 'code' && g !== undefined && g === codeOfHermesError(hermesAnswer),
    'job-of-case': ({ caseId, gateway: g }) => typeof g === 'string' && g === jobOfCase.get(caseId),
    'utf8-bytes-sent': ({ caseId, gateway: g }) => g === bytesSent(caseById.get(caseId)),
  },
});
