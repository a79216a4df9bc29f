import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { viaBridge } from '../helpers/gateway.js';
import { compareSurface, errorAsHermes, loadCases, normalise, normalisedAnswers, oneByOne, SurfaceFixture, type FidelityCase } from './harness.js';
import { writeFiles, type FileSpec } from './workspace.js';

// process_manage against Hermes' `process` tool (tools/process_registry.py _handle_process). Hermes'
// process is started by its terminal (background=true); the gateway's direct terminal never
// backgrounds, so its process is started the way the gateway starts background work: a job
// (job_prepare + job_start) in a session of the case's own, found by action=list. Steps run first
// (their answers dropped), then the compared action; each side's process id reads `<proc>`.

type Action = Record<string, unknown>;
type Step = Action | { sleep: number };

interface ProcessCase extends FidelityCase {
  files?: Record<string, FileSpec>;
  command: string;
  /** Run on a pseudo-terminal (Hermes: terminal pty=true; the gateway: a job prepared with pty: true). */
  pty?: boolean;
  steps?: Step[];
  action: Action;
}

interface Answer {
  process: string;
  result: unknown;
}

const fx = new SurfaceFixture('proc');
const cases = loadCases<ProcessCase>('process');

const dirOf = (c: ProcessCase) => join(fx.ws, c.id);
// Hermes' clamp on a wait (TERMINAL_TIMEOUT) set to the gateway's processWaitMaxSeconds.
const WAIT_MAX_SECONDS = 25;

/** The action's arguments with the case's process filled in (`session_id: null` leaves it out). */
function withProcess(action: Action, id: string): Action {
  if (!('session_id' in action)) return { ...action, session_id: id };
  const { session_id, ...rest } = action;
  return session_id === null ? rest : action;
}

const norm = (a: Answer) =>
  normalise(errorAsHermes(a.result), { replace: { [fx.ws]: '<ws>', [a.process]: '<proc>' }, volatile: ['pid', 'uptime_seconds', 'started_at'] });

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
    return normalisedAnswers(answers, (a) => (a !== null && typeof a === 'object' && 'process' in a ? norm(a as Answer) : a));
  },
  gateway: {
    mcp: (list) =>
      oneByOne(list, async (c) => {
        const client = fx.gw.client;
        const token = (await viaBridge(client, 'session_open')).data.session_token as string;
        const prep = (await viaBridge(client, 'job_prepare', { command: c.command, workdir: dirOf(c), ...(c.pty ? { pty: true } : {}) }, token)).data;
        const job = { job_id: prep.job_id as string, recovery_token: prep.recovery_token as string };
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
          return norm({ process: id, result: await act(c.action) });
        } finally {
          await act({ action: 'kill' });
          await viaBridge(client, 'session_close', {}, token).catch(() => undefined);
        }
      }),
  },
});
