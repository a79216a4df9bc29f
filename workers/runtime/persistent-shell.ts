import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoundedCollector } from '../../shared/output-cap.js';
import type { ExecRequest, ExecResult } from '../../shared/worker-protocol/exec.js';
import { AGENT_ENVIRONMENT_LINES, spawnedChildren } from './exec-command.js';
import { killEverythingStarted, reapZombies } from './reap.js';
import { SHELL_STATE } from './shell-state.js';

// One long-lived bash per owner's terminal worker (Hermes' "persistent shell" mode): a command
// costs a write to the shell's stdin instead of a bash start-up, and `cd`/`export` persist in the
// live shell as well as in the state directory (so a restarted shell, or a restarted worker,
// resumes where the owner left off). After every command everything it left behind is killed
// except the shell itself; on a deadline the shell goes too and is started again next time.

const INIT = (stateDir: string) => `exec 2>&1
__hermes_state=${quote(stateDir)}
${SHELL_STATE}
if [ -f "$__hermes_state/cwd" ]; then builtin cd -- "$(< "$__hermes_state/cwd")" 2>/dev/null; fi
`;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export class PersistentShell {
  private shell?: ChildProcess;
  private stateDir?: string;

  private start(stateDir: string): ChildProcess {
    const shell = spawn('bash', ['--norc', '--noprofile', '-s'], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    if (shell.pid) spawnedChildren.add(shell.pid);
    shell.stdin!.on('error', () => {});
    shell.once('exit', () => {
      if (shell.pid) spawnedChildren.delete(shell.pid);
      if (this.shell === shell) this.shell = undefined;
    });
    shell.stdin!.write(INIT(stateDir));
    this.shell = shell;
    this.stateDir = stateDir;
    return shell;
  }

  async run(req: ExecRequest): Promise<ExecResult> {
    if (this.shell && this.stateDir !== req.stateDir) this.kill();
    const shell = this.shell ?? this.start(req.stateDir);
    const nonce = randomBytes(8).toString('hex');
    const marker = `__HERMES_DONE_${nonce}__`;
    // The command goes through a file and `.`, never through the shell's own stdin: a command that
    // reads stdin gets /dev/null instead of the rest of our protocol.
    const file = join(req.stateDir, 'command.sh');
    writeFileSync(file, req.command + '\n', { mode: 0o600 });
    const collector = new BoundedCollector({ maxBytes: req.maxOutputBytes });
    let tail = '';
    const outcome = await new Promise<{ code: number; timedOut: boolean; marked?: boolean }>((resolve) => {
      const timer = setTimeout(() => {
        this.kill();
        // What the command printed before its deadline is its output too (the marker never came).
        collector.push(Buffer.from(tail, 'latin1'));
        tail = '';
        finish({ code: 124, timedOut: true });
      }, req.timeoutMs);
      // Listeners belong to this shell and this command only: a shell killed earlier (deadline,
      // state switch) may still report its exit after a new one took its place.
      const onData = (chunk: Buffer) => {
        // Watch for the marker in a small rolling window; everything before it is output.
        const text = tail + chunk.toString('latin1');
        const at = text.indexOf(marker);
        if (at < 0) {
          const keep = Math.max(0, text.length - marker.length - 16);
          collector.push(Buffer.from(text.slice(0, keep), 'latin1'));
          tail = text.slice(keep);
          return;
        }
        collector.push(Buffer.from(text.slice(0, at), 'latin1'));
        const codeText = /^(\d+)/.exec(text.slice(at + marker.length))?.[1] ?? '1';
        finish({ code: Number(codeText), timedOut: false, marked: true });
      };
      const onExit = (code: number | null) => {
        // The command ended the shell (`exit N`, `exec ...`): that is its exit status.
        collector.push(Buffer.from(tail, 'latin1'));
        tail = '';
        finish({ code: code ?? 1, timedOut: false });
      };
      const finish = (r: { code: number; timedOut: boolean; marked?: boolean }) => {
        clearTimeout(timer);
        shell.stdout!.off('data', onData);
        shell.off('exit', onExit);
        resolve(r);
      };
      shell.stdout!.on('data', onData);
      shell.once('exit', onExit);
      shell.stdin!.write(
        (req.agentEnvironment ? AGENT_ENVIRONMENT_LINES : '') +
          `if builtin cd -- ${quote(req.cwd)} 2>/dev/null; then . ${quote(file)} </dev/null; __hermes_ec=$?; ` +
          `else echo "cannot enter working directory: "${quote(req.cwd)}; __hermes_ec=1; fi; ` +
          `__hermes_save; printf '\\n${marker}%d\\n' "$__hermes_ec"\n`,
      );
    });
    // Whatever the command left behind dies now; the shell itself (if still alive) is spared.
    const spare = new Set(spawnedChildren);
    killEverythingStarted(spare, spare);
    reapZombies(spawnedChildren);
    const out = collector.result();
    // Our printf put a newline before the marker; drop exactly that one.
    const text = outcome.marked && out.text.endsWith('\n') ? out.text.slice(0, -1) : out.text;
    let cwd: string | undefined;
    try {
      cwd = readFileSync(join(req.stateDir, 'cwd'), 'utf8').trim() || undefined;
    } catch {
      cwd = undefined;
    }
    return { exitCode: outcome.code, timedOut: outcome.timedOut, output: text, outputBytes: out.totalBytes, ...(cwd ? { cwd } : {}) };
  }

  /** Kills the shell and its process group (a deadline, or the worker shutting down). */
  kill(): void {
    const shell = this.shell;
    this.shell = undefined;
    if (shell?.pid) {
      try {
        process.kill(-shell.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    killEverythingStarted(spawnedChildren);
  }
}
