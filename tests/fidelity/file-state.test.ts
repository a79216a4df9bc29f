import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { viaBridge } from '../helpers/gateway.js';
import { hermes } from '../helpers/hermes.js';
import { compareSurface, errorAsHermes, loadCases, normalise, oneByOne, SurfaceFixture, type FidelityCase } from './harness.js';
import { writeFiles, type FidelityGateway, type FileSpec } from './workspace.js';

// Hermes' per-task file state (read de-duplication, repeated-read warnings and BLOCKED answers,
// staleness warnings on write_file and patch, what resets them) compared on SEQUENCES of calls:
// each case's steps run in order under one task id on Hermes' side (drivers/file_state.py calls its
// tool functions with that task_id, and notify_other_tool_call before every other tool, as its
// dispatcher does) and under one gateway owner (a session token) on the gateway's; `task: other`
// steps under a second task id / session token. A case's answer is the list of its read_file,
// write_file and patch steps' answers, with the case's directory as `<dir>` and wall-clock times
// (Hermes' "at HH:MM:SS" in its sibling-writer warnings) as `<time>`.

type Step =
  | { tool: 'read_file' | 'write_file' | 'patch' | 'search_files'; args: Record<string, unknown>; task?: 'same' | 'other' }
  /** A tool call whose own work touches no file (the gateway: terminal `true`; Hermes: its dispatcher's notification alone). */
  | { other_tool: true; task?: 'same' | 'other' }
  /** The file gets a modification time ten seconds later, its content unchanged. */
  | { touch: string }
  /** The file rewritten from outside any task; `keep_mtime`: its old modification time put back. */
  | { edit: string; content: string; keep_mtime?: boolean };

interface StateCase extends FidelityCase {
  files: Record<string, FileSpec>;
  steps: Step[];
  /** Run with Hermes' kill switch HERMES_DISABLE_FILE_STATE_GUARD=1 (Hermes' driver and a gateway of its own). */
  guard_off?: boolean;
}

const GUARD_OFF = { HERMES_DISABLE_FILE_STATE_GUARD: '1' };

const fx = new SurfaceFixture('file-state');
/** The gateway with Hermes' kill switch set, for the guard_off cases. */
let guardOff: FidelityGateway | undefined;
const cases = loadCases<StateCase>('file_state');
const dirOf = (way: string, c: StateCase) => join(fx.ws, way, c.id);

/** A step with its paths made absolute under the case's directory (`path` args, `touch`/`edit` targets, `{dir}` in a V4A patch). */
function stepIn(s: Step, dir: string): Step {
  if ('touch' in s) return { touch: join(dir, s.touch) };
  if ('edit' in s) return { ...s, edit: join(dir, s.edit) };
  if ('other_tool' in s) return s;
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.args)) args[k] = typeof v !== 'string' ? v : k === 'path' ? join(dir, v) : v.split('{dir}').join(dir);
  return { ...s, args };
}

function touch(path: string): void {
  const st = statSync(path);
  const t = new Date(st.mtimeMs + 10_000);
  utimesSync(path, t, t);
}

function edit(path: string, content: string, keepMtime: boolean): void {
  const st = statSync(path);
  writeFileSync(path, content);
  if (keepMtime) utimesSync(path, st.atime, st.mtime);
}

/** The case files' modification time before the steps: a whole second, an hour ago. */
const START = Math.floor(Date.now() / 1000) - 3600;

const CLOCK = /\b\d\d:\d\d:\d\d\b/g;

/** One case's step answers as compared: errors as Hermes words them, the directory and clock times replaced. */
function answerOf(dir: string, answers: unknown[]): unknown {
  const replace = { [dir]: '<dir>', [fx.ws]: '<ws>' };
  const timed = JSON.parse(JSON.stringify(answers.map(errorAsHermes)).replace(CLOCK, '<time>')) as unknown;
  return normalise(timed, { replace });
}

/** The step of an answer a field of it (`<step>.<name>`) belongs to. */
function stepOf(answer: unknown, field: string): Record<string, unknown> | undefined {
  const step = (answer as unknown[])[Number(field.split('.')[0])];
  return typeof step === 'object' && step !== null ? (step as Record<string, unknown>) : undefined;
}

/** The gateway's stable code for a refusal, from Hermes' text of it (shared/errors.ts). */
function codeFor(hermesError: unknown): string | undefined {
  if (typeof hermesError !== 'string') return undefined;
  if (hermesError.startsWith('BLOCKED: You have ')) return 'FILE_READ_REPEATED';
  if (hermesError.startsWith('File not found: ')) return 'FILE_NOT_FOUND';
  if (hermesError.startsWith('Binary file')) return 'FILE_BINARY';
  if (hermesError.startsWith('Refusing to overwrite ')) return 'FILE_STALE_WRITE';
  return undefined;
}

/** The other task's name in Hermes' sibling texts: the driver's task id for the case's other task. */
const hermesOther = (caseId: string) => `'fidelity-file-state-${caseId}-other'`;

compareSurface<StateCase>({
  surface: 'file_state',
  cases,
  fixture: fx,
  checks: {
    // The step's code is the one its Hermes error text names (the text itself is compared as it is).
    'code-of-hermes-error': ({ field, gateway, hermesAnswer }) => gateway !== undefined && gateway === codeFor(stepOf(hermesAnswer, field)?.error),
    // Hermes' text exactly, the other task's id replaced by one 'task-<8 hex digits>' label (a digest of the other owner).
    'sibling-owner-label': ({ caseId, gateway, hermes: h }) => {
      if (typeof gateway !== 'string' || typeof h !== 'string' || !h.includes(hermesOther(caseId))) return false;
      const label = /'task-[0-9a-f]{8}'/.exec(gateway)?.[0];
      return label !== undefined && gateway === h.split(hermesOther(caseId)).join(label);
    },
  },
  async setUp() {
    for (const way of ['hermes', 'mcp_session'])
      for (const c of cases) {
        writeFiles(dirOf(way, c), c.files);
        // Whole-second times, so an `edit` that keeps the old one puts it back exactly (Node sets times in milliseconds).
        for (const rel of Object.keys(c.files)) utimesSync(join(dirOf(way, c), rel), START, START);
      }
    await fx.gateway({ env: { HERMES_AGENT_PYTHON: hermes().python } });
    guardOff = await fx.gateway({ env: { HERMES_AGENT_PYTHON: hermes().python, ...GUARD_OFF } });
  },
  async hermes(list) {
    const out = new Map<string, unknown>();
    for (const off of [false, true]) {
      const some = list.filter((c) => (c.guard_off === true) === off);
      const input = { cases: some.map((c) => ({ id: c.id, steps: c.steps.map((s) => stepIn(s, dirOf('hermes', c))) })) };
      const answers = await fx.driver('file_state.py', input, { TERMINAL_CWD: fx.ws, ...(off ? GUARD_OFF : {}) }, 300_000);
      for (const c of some) out.set(c.id, answerOf(dirOf('hermes', c), answers.get(c.id) as unknown[]));
    }
    return out;
  },
  gateway: {
    // One session token is the task (Hermes' task id), a second one the other task.
    mcp_session: (list) =>
      oneByOne(list, async (c) => {
        const dir = dirOf('mcp_session', c);
        const client = (c.guard_off ? guardOff! : fx.gw).client;
        const token = (await viaBridge(client, 'session_open')).data.session_token as string;
        const other = (await viaBridge(client, 'session_open')).data.session_token as string;
        const answers: unknown[] = [];
        for (const raw of c.steps) {
          const s = stepIn(raw, dir);
          if ('touch' in s) touch(s.touch);
          else if ('edit' in s) edit(s.edit, s.content, s.keep_mtime === true);
          else {
            const as = s.task === 'other' ? other : token;
            if ('other_tool' in s) await viaBridge(client, 'terminal', { command: 'true' }, as);
            else {
              const answer = (await viaBridge(client, s.tool, s.args, as)).data;
              if (s.tool !== 'search_files') answers.push(answer);
            }
          }
        }
        for (const t of [token, other]) await viaBridge(client, 'session_close', {}, t).catch(() => undefined);
        return answerOf(dir, answers);
      }),
  },
});
