import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { constants } from 'node:os';
import type { IPty } from 'node-pty';
import type { TerminalSize } from '../../shared/worker-protocol/process.js';
import { TerminalText } from './terminal-text.js';

// A command on a pseudo-terminal (node-pty), for the process worker: stdin and stdout are a real
// TTY, so installers that ask questions, REPLs and tools that change their output without a
// terminal behave as they would for a person. The output goes through TerminalText, which renders
// it and hands back finished rows and the current screen.
//
// node-pty is imported only here, when a PTY is asked for: a host where its native build is missing
// can still run every plain job. Its forkpty() child is a session leader with the terminal as its
// controlling TTY; anything it starts (setsid double forks included) stays in the worker's PID
// namespace and dies with the worker's whole-tree cleanup like any other job's processes.

/** ^D: the terminal's end-of-input character (VEOF), as `close` sends it. */
const END_OF_INPUT = '\x04';

export interface PtyCommand {
  readonly pid: number;
  write(data: string): void;
  /** End of input: what ^D does on a terminal (at the start of a line, the reader sees EOF). */
  endInput(): void;
  resize(size: TerminalSize): void;
}

interface PtyEvents {
  output(text: string): void;
  screen(text: string): void;
  /** After the command's last output has been rendered and sent. */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

export async function startPtyCommand(command: string, cwd: string, size: TerminalSize, events: PtyEvents): Promise<PtyCommand> {
  const { spawn } = await import('node-pty');
  const text = new TerminalText(size, events);
  // The same shell as a plain job, minus `exec 2>&1`: on a terminal, stderr is the terminal already.
  // TERM names what renders the output (an xterm emulator).
  const pty = spawn('bash', ['--norc', '--noprofile', '-c', command], { name: 'xterm-256color', cols: size.cols, rows: size.rows, cwd, env: process.env });
  // Linux may drop what is still in flight when the last holder of the terminal's slave end closes
  // it (node-pty#72, #85), so the worker holds it open until the command has exited. The master side
  // then never sees that hang-up (EIO), so node-pty ends its read stream on its own timer instead:
  // 200 ms after the command's exit (DESTROY_SOCKET_TIMEOUT_MS in node-pty's unixTerminal.js), and
  // whatever is unread by then is dropped. What can be unread at the exit is at most the terminal's
  // kernel buffer (a writer blocks once it is full), and it is read as it arrives: nothing on this
  // path blocks the event loop (the emulator parses in time slices), so only a worker starved of CPU
  // for that long could lose it. node-pty gives no public way to stretch that timer or to read the
  // master after it; pty-terminal.test.ts checks that a buffer-filling last write arrives whole.
  const slave = holdSlave(pty);
  pty.onData((data) => text.write(data));
  pty.onExit(({ exitCode, signal }) => {
    if (slave !== undefined) closeSync(slave);
    void text.finish().then(() => {
      text.dispose();
      const name = signal ? signalName(signal) : null;
      events.exit(name ? null : exitCode, name);
    });
  });
  return {
    pid: pty.pid,
    write: (data) => pty.write(data),
    endInput: () => pty.write(END_OF_INPUT),
    resize: (next) => {
      pty.resize(next.cols, next.rows);
      text.resize(next);
    },
  };
}

/** An fd on the terminal's slave end, or undefined if it cannot be opened (then: node-pty's behaviour). */
function holdSlave(pty: IPty): number | undefined {
  // `ptsName` is public on node-pty's Unix terminal, though not on the IPty interface.
  const path = (pty as IPty & { readonly ptsName?: unknown }).ptsName;
  if (typeof path !== 'string') return undefined;
  try {
    return openSync(path, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

function signalName(signal: number): NodeJS.Signals | null {
  const entry = Object.entries(constants.signals).find(([, n]) => n === signal);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}
