import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { constants } from 'node:os';
import type { IPty } from 'node-pty';
import xtermHeadless from '@xterm/headless';
import type { IBuffer, IMarker, Terminal as HeadlessTerminal } from '@xterm/headless';
import type { TerminalSize } from '../../shared/worker-protocol/process.js';

// A command on a pseudo-terminal (node-pty), for the process worker: stdin and stdout are a real
// TTY, so installers that ask questions, REPLs and tools that change their output without a
// terminal behave as they would for a person. The output goes through TerminalText, which renders
// it and hands back finished rows and the current screen (below).
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

// ---- TerminalText: a PTY's output as readable text --------------------------------------------
//
// A PTY's output as readable text, rendered by a real terminal emulator (@xterm/headless) instead
// of parsed by hand: cursor movement, erasing, carriage-return progress bars and colours all end up
// as what a person would see on the screen.
//
// A screen is not an append-only stream (a progress bar rewrites its line), but the supervisor's
// buffers and the job's receipt are. So the text comes out in two parts:
//   - `output`: finished rows, appended once each. A row is finished when it has scrolled above the
//     screen into the scrollback, where no control sequence can change it any more, or when the
//     command has ended. A marker on the first unfinished row follows it as the scrollback moves.
//   - `screen`: the unfinished rows (the screen from that marker down, trailing blank rows dropped),
//     each snapshot replacing the last; throttled, since a progress bar may redraw thousands of times.
// Rows the emulator wrapped are joined back into one line, so a long line (or a secret in it) reads
// whole; a row's text is right-trimmed only where its logical line ends.

const { Terminal } = xtermHeadless;

/** Input is parsed in pieces this long, each followed by a commit (see SCROLLBACK_ROWS). */
const PIECE_CHARS = 1024;
/**
 * Rows kept above the screen. One piece adds at most about PIECE_CHARS rows before it is committed,
 * so unfinished rows never scroll out of the scrollback unread.
 */
const SCROLLBACK_ROWS = 2 * PIECE_CHARS;
/** At most one screen snapshot this often. */
const SCREEN_EVERY_MS = 50;

interface TextSink {
  output(text: string): void;
  screen(text: string): void;
}

class TerminalText {
  private readonly term: HeadlessTerminal;
  /** The first unfinished row of the normal buffer (undefined before the first commit: row 0). */
  private marker: IMarker | undefined;
  private lastScreen = '';
  private screenTimer: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(size: TerminalSize, private readonly sink: TextSink) {
    // scrollOnEraseInDisplay: a `clear` pushes the screen into the scrollback (PuTTY's behaviour)
    // instead of erasing it, so what was shown before it still becomes output.
    this.term = new Terminal({ cols: size.cols, rows: size.rows, scrollback: SCROLLBACK_ROWS, scrollOnEraseInDisplay: true, allowProposedApi: true });
  }

  /** Renders `data`; each piece's finished rows are sent as soon as it is parsed. */
  write(data: string): void {
    for (let i = 0; i < data.length; i += PIECE_CHARS) this.term.write(data.slice(i, i + PIECE_CHARS), () => this.commit(false));
  }

  /** Resizes once everything written so far has been rendered at the old size. */
  resize(size: TerminalSize): void {
    this.term.write('', () => {
      this.term.resize(size.cols, size.rows);
      this.scheduleScreen();
    });
  }

  /** The command has ended: everything still on the screen becomes output. */
  finish(): Promise<void> {
    return new Promise((resolve) => {
      this.term.write('', () => {
        this.commit(true);
        resolve();
      });
    });
  }

  dispose(): void {
    clearTimeout(this.screenTimer);
    this.term.dispose();
  }

  private commit(final: boolean): void {
    if (this.finished) return;
    const normal = this.term.buffer.normal;
    // A full-screen program (the alternate screen) has no scrollback: nothing finishes meanwhile.
    if (this.term.buffer.active.type === 'normal' || final) {
      const from = this.firstUnfinished();
      const to = final ? lastNonBlank(normal, from) + 1 : normal.baseY;
      let text = '';
      for (let row = from; row < to; row++) text += rowText(normal, row, final && row === to - 1);
      if (text !== '') this.sink.output(text);
      if (final) {
        this.finished = true;
        clearTimeout(this.screenTimer);
        if (this.lastScreen !== '') this.sink.screen('');
        return;
      }
      if (to > from) {
        this.marker?.dispose();
        // Markers are placed relative to the cursor's row.
        this.marker = this.term.registerMarker(to - (normal.baseY + normal.cursorY));
      }
    }
    this.scheduleScreen();
  }

  /** Row 0 until a marker exists; also row 0 if the marker's row was cleared away (ESC [3J). */
  private firstUnfinished(): number {
    return this.marker && !this.marker.isDisposed && this.marker.line >= 0 ? this.marker.line : 0;
  }

  private scheduleScreen(): void {
    if (this.screenTimer || this.finished) return;
    this.screenTimer = setTimeout(() => {
      this.screenTimer = undefined;
      if (this.finished) return;
      const screen = this.screenText();
      if (screen !== this.lastScreen) this.sink.screen(screen);
      this.lastScreen = screen;
    }, SCREEN_EVERY_MS);
  }

  private screenText(): string {
    const active = this.term.buffer.active;
    const from = active.type === 'normal' ? this.firstUnfinished() : active.viewportY;
    const to = lastNonBlank(active, from) + 1;
    let text = '';
    for (let row = from; row < to; row++) text += rowText(active, row, row === to - 1);
    return text.replace(/\n$/, '');
  }
}

/** The last row at or after `from` with any text, or `from - 1` when there is none. */
function lastNonBlank(buffer: IBuffer, from: number): number {
  for (let row = buffer.length - 1; row >= from; row--) if (buffer.getLine(row)?.translateToString(true) !== '') return row;
  return from - 1;
}

/** One row: a newline where its logical line ends, none where the emulator wrapped it. */
function rowText(buffer: IBuffer, row: number, endsLine: boolean): string {
  const continues = !endsLine && buffer.getLine(row + 1)?.isWrapped === true;
  return (buffer.getLine(row)?.translateToString(!continues) ?? '') + (continues ? '' : '\n');
}
