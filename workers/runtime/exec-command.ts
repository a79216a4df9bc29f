import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import { BoundedCollector } from '../../shared/output-cap.js';
import type { ExecRequest, ExecResult } from '../../shared/worker-protocol/exec.js';
import { SHELL_STATE } from './shell-state.js';
import { reapZombies } from './reap.js';
import { settledWithin } from '../../shared/settle.js';

// One foreground shell command inside a worker, Hermes-style: the owner's saved environment is
// sourced, its cwd entered, the command eval'd in that same shell (so `cd` and `export` persist)
// and on any exit the cwd and exports are saved to the state directory. Used for hermes_tools.terminal
// inside an execute_code worker; the owner's direct terminal uses runtime/persistent-shell.ts.

// Laid out as Hermes' own wrapper is (tools/environments/base.py _wrap_command): the saved state on
// line 1, the cd on line 2, the command's eval on line 3, run by bash under its full path. So
// bash's own diagnostics read as Hermes' do ("/usr/bin/bash: line 3: x: command not found"), and a
// directory that cannot be entered fails as there, with cd's message and exit code 126.
// The request reaches the shell in variables that are read and unset before anything else runs:
// the exports saved on exit (the EXIT trap, also on a failed cd) never carry them into the next call.
// Since Hermes 0.22.2 the wrapper exports AI_AGENT/HERMES_AGENT and GIT_PAGER/PAGER on two lines
// before its cd (tools/environments/base_session_env.py _wrap_command_script): with
// `agentEnvironment` the same two lines, so the cd is line 4 and the command line 5, as there.
const SETUP_LINE =
  'exec 2>&1; __hermes_state="$HERMES_MCP_STATE_DIR"; __hermes_cwd="$HERMES_MCP_CWD"; __hermes_cmd="$HERMES_MCP_COMMAND"; __hermes_setup="$HERMES_MCP_SETUP"; ' +
  'unset HERMES_MCP_STATE_DIR HERMES_MCP_CWD HERMES_MCP_COMMAND HERMES_MCP_SETUP; eval "$__hermes_setup"\n';
export const AGENT_ENVIRONMENT_LINES = 'export AI_AGENT="${AI_AGENT:-hermes-agent}" HERMES_AGENT="${HERMES_AGENT:-true}"\nexport GIT_PAGER="${GIT_PAGER:-cat}" PAGER="${PAGER:-cat}"\n';
const RUN_LINES = 'builtin cd -- "$__hermes_cwd" || exit 126\n' + 'eval "$__hermes_cmd"\n';
const WRAPPER = SETUP_LINE + RUN_LINES;
const AGENT_WRAPPER = SETUP_LINE + AGENT_ENVIRONMENT_LINES + RUN_LINES;

/** bash's full path (the first on PATH), as Hermes runs it; bare `bash` when PATH has none. */
function findBash(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = join(dir, 'bash');
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return 'bash';
}
const BASH = findBash();

/** Children spawned through child_process: killed by the sweep but reaped by libuv, not by us. */
export const spawnedChildren = new Set<number>();

export async function runCommand(req: ExecRequest): Promise<ExecResult> {
  const child = spawn(BASH, ['--norc', '--noprofile', '-c', req.agentEnvironment ? AGENT_WRAPPER : WRAPPER], {
    argv0: BASH,
    env: { ...process.env, HERMES_MCP_STATE_DIR: req.stateDir, HERMES_MCP_CWD: req.cwd, HERMES_MCP_COMMAND: req.command, HERMES_MCP_SETUP: SHELL_STATE },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true, // its own process group, killed as a whole on deadline
  });
  if (child.pid) spawnedChildren.add(child.pid);
  // Bounded transport (head + rolling tail): memory stays flat whatever the command prints; the
  // supervisor applies Hermes' character cap on the text.
  const collector = new BoundedCollector({ maxBytes: req.maxOutputBytes });
  child.stdout!.on('data', (chunk: Buffer) => collector.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, req.timeoutMs);
  const drained = new Promise<void>((resolve) => child.stdout!.once('close', () => resolve()));
  // 'exit', not 'close': an escapee that inherited the output pipe would hold 'close' off forever.
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (c, s) => resolve({ code: c, signal: s }));
    child.once('error', () => resolve({ code: 127, signal: null }));
  });
  clearTimeout(timer);
  // The command is over: its process group dies now. Setsid escapees are left to the namespace,
  // which dies with the script that asked for the command (the execute worker is one-shot).
  killGroup(child.pid);
  if (child.pid) spawnedChildren.delete(child.pid);
  reapZombies(spawnedChildren);
  await settledWithin(drained, 1000);
  const exitCode = timedOut ? 124 : (code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
  let cwd: string | undefined;
  try {
    cwd = readFileSync(`${req.stateDir}/cwd`, 'utf8').trim() || undefined;
  } catch {
    cwd = undefined;
  }
  const out = collector.result();
  return { exitCode, timedOut, output: out.text, outputBytes: out.totalBytes, ...(cwd ? { cwd } : {}) };
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // group already gone
  }
}
