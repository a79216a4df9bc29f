// The shell's wrapper words, as Hermes reads them in front of a command (tools/approval.py in 0.19,
// tools/approval_detection.py later): which words run the command after them, which of their options
// take a value, which options make them run nothing, and how many operands come before the command.

/**
 * Words that run the command after them (Hermes' _COMMAND_WRAPPER_WORDS: 0.19 names the first
 * eight, later Hermes also nice, timeout, stdbuf, ionice, chrt, taskset and chroot).
 */
export const WRAPPERS = new Set(['sudo', 'env', 'exec', 'nohup', 'setsid', 'time', 'command', 'builtin', 'nice', 'timeout', 'stdbuf', 'ionice', 'chrt', 'taskset', 'chroot']);
/** sudo/env options (lowercased) whose value is the next word (the gateway's reading since 0.19). */
export const SUDO_ENV_OPTIONS_WITH_ARG = new Set(['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-c', '--close-from', '--chdir', '-d', '-r', '--role', '-t', '--type', '--unset']);
/** Each wrapper's options whose value is the next word, as written (Hermes' _COMMAND_WRAPPER_OPTIONS_WITH_ARG). */
export const WRAPPER_OPTIONS_WITH_ARG: Readonly<Record<string, ReadonlySet<string>>> = {
  chroot: new Set(['--groups', '--userspec']),
  sudo: new Set(['-c', '--close-from', '-g', '--group', '-h', '--host', '-p', '--prompt', '-u', '--user']),
  env: new Set(['-a', '--argv0', '-C', '--chdir', '-S', '--split-string', '-u', '--unset']),
  exec: new Set(['-a']),
  nice: new Set(['-n', '--adjustment']),
  time: new Set(['-f', '--format', '-o', '--output']),
  timeout: new Set(['-k', '--kill-after', '-s', '--signal']),
  stdbuf: new Set(['-e', '--error', '-i', '--input', '-o', '--output']),
  ionice: new Set(['-c', '--class', '-n', '--classdata']),
};
/** Options after which a wrapper runs no command (Hermes' _COMMAND_WRAPPER_NON_EXECUTING_OPTIONS). */
export const WRAPPER_QUERY_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  command: new Set(['-v', '-V']),
  chrt: new Set(['-p', '--pid']),
  ionice: new Set(['-p', '--pid', '--pgid', '--uid']),
  taskset: new Set(['-p', '--pid']),
};
/** Operands a wrapper takes before the command (Hermes' _COMMAND_WRAPPER_POSITIONAL_ARGS). */
export const WRAPPER_POSITIONALS: Readonly<Record<string, number>> = { chroot: 1, chrt: 1, taskset: 1, timeout: 1 };
