// One foreground shell command: the request that both the terminal worker (direct `terminal`) and
// an execute_code unit's command helper (hermes_tools.terminal) answer, and its result. The command
// runners (workers/runtime/exec-command.ts, persistent-shell.ts) take and return these types, and
// the supervisor reads the same ones: one definition from the runner to the tool.

export type ExecRequest = {
  command: string;
  cwd: string;
  timeoutMs: number;
  /** The owner's (or unit's) private directory holding the shell's saved cwd and environment. */
  stateDir: string;
  /** The output kept in transit (head + rolling tail); the supervisor applies Hermes' character cap. */
  maxOutputBytes: number;
  /**
   * Export AI_AGENT, HERMES_AGENT, GIT_PAGER and PAGER (unless already set) before the command, as
   * Hermes' command wrapper does since 0.22.2 (tools/environments/base_session_env.py).
   */
  agentEnvironment?: boolean;
};

export type ExecResult = {
  /** 124 on deadline, 128+n for a signal, as bash reports it. */
  exitCode: number;
  timedOut: boolean;
  output: string;
  outputBytes: number;
  /** Where the command ended, when the state directory says. */
  cwd?: string;
};

/** The command did not run at all (the worker was busy, the helper could not be started). */
type ExecFailure = { error: string };

export type ExecMessage = { type: 'exec'; id: string } & ExecRequest;
export type ResultMessage = { type: 'result'; id: string } & (ExecResult | ExecFailure);
