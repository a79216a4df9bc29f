import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, viaBridge, type TestGateway } from '../../helpers/gateway.js';
import { openSession, prepareJob, waitForFinal, workdirIn } from '../../helpers/jobs.js';
import { waitFor } from '../../helpers/wait.js';

// A job prepared with pty: true runs on a real pseudo-terminal (node-pty in its worker), and its
// output reads as the text a terminal would show: isatty() is true, control sequences are rendered
// away, a carriage-return progress bar reads as its last state, and a resize reaches the program.

const ISATTY = `python3 -c "import sys; print(sys.stdin.isatty(), sys.stdout.isatty())"`;

describe('jobs: pty', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
  });
  const workdir = (name: string) => workdirIn(gw.home, 'work', name);

  test('a PTY job has a terminal (True True), a plain one has pipes (False False); job_status says which', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const onTerminal = await prepareJob(client, token, ISATTY, workdir('tty'), { pty: true });
    const onPipes = await prepareJob(client, token, ISATTY, workdir('pipes'));
    for (const job of [onTerminal, onPipes]) assert.equal((await viaBridge(client, 'job_start', job, token)).isError, false);
    const [tty, plain] = [await waitForFinal(client, onTerminal), await waitForFinal(client, onPipes)];
    assert.equal(tty.state, 'succeeded', JSON.stringify(tty));
    assert.equal(tty.output_tail, 'True True\n');
    assert.equal(tty.tty, true);
    assert.deepEqual(tty.terminal, { cols: 120, rows: 40 });
    assert.equal(plain.output_tail, 'False False\n');
    assert.equal(plain.tty, false);
    await client.close();
  });

  test('control sequences are rendered to text and a \\r progress bar reads as its final state', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const command = `for i in 1 2 3 4 5; do printf '\\rdownloading %3d%%' $((i*20)); sleep 0.05; done; printf '\\n\\033[1;32mgreen\\033[0m\\njunk\\r\\033[2Kcleared\\n'`;
    const job = await prepareJob(client, token, command, workdir('progress'), { pty: true });
    await viaBridge(client, 'job_start', job, token);
    const final = await waitForFinal(client, job);
    assert.equal(final.output_tail, 'downloading 100%\ngreen\ncleared\n');
    await client.close();
  });

  test('the end of a fast flood is not lost when the command exits at once', async () => {
    // Linux can drop a PTY's last unread output once the command's side of the terminal closes;
    // the worker holds that side open until the exit, so every line arrives.
    const { client, token } = await openSession(gw.mcpUrl);
    const job = await prepareJob(client, token, 'seq 1 100000', workdir('flood'), { pty: true });
    await viaBridge(client, 'job_start', job, token);
    const final = await waitForFinal(client, job);
    assert.equal(final.output_bytes, 588_895, 'every line of seq 1 100000, as text');
    assert.match(final.output_tail as string, /\n99999\n100000\n$/);
    assert.equal(final.output_truncated, true);
    await client.close();
  });

  test('a last write that fills the terminal buffer right before the exit arrives whole', async () => {
    // One 64 KiB write, then the exit: at the exit up to a kernel buffer's worth is still unread,
    // and node-pty closes its side 200 ms later (pty-command.ts): it must all be read by then.
    const { client, token } = await openSession(gw.mcpUrl);
    const command = `python3 -c "import os, sys; os.write(1, b'y' * 65536 + b'\\nEND\\n'); sys.exit(3)"`;
    const job = await prepareJob(client, token, command, workdir('burst'), { pty: true });
    await viaBridge(client, 'job_start', job, token);
    const final = await waitForFinal(client, job);
    assert.equal(final.exit_code, 3, JSON.stringify(final));
    assert.equal(final.output_bytes, 65536 + 'END'.length + 2, 'the wrapped rows joined back into one line, then END');
    assert.match(final.output_tail as string, /yyyy\nEND\n$/);
    await client.close();
  });

  test('resize reaches the program (stty size) and is refused for a plain process', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    // Prints its size, then again after each Enter.
    const command = `stty size; while read -r _; do stty size; done`;
    const job = await prepareJob(client, token, command, workdir('resize'), { pty: true, cols: 90, rows: 30 });
    await viaBridge(client, 'job_start', job, token);
    const list = await viaBridge(client, 'process_manage', { action: 'list' }, token);
    const proc = (list.data.processes as Array<Record<string, unknown>>).find((p) => p.job_id === job.job_id);
    assert.ok(proc, JSON.stringify(list.data));
    assert.equal(proc.tty, true);
    const id = proc.session_id as string;
    const log = async () => (await viaBridge(client, 'process_manage', { action: 'log', session_id: id }, token)).data.output as string;
    await waitFor(async () => (await log()).includes('30 90'), 10_000, 'the initial size');
    const resized = await viaBridge(client, 'process_manage', { action: 'resize', session_id: id, cols: 132 }, token);
    assert.deepEqual(resized.data, { status: 'ok', session_id: id, cols: 132, rows: 30 });
    await viaBridge(client, 'process_manage', { action: 'submit', session_id: id, data: '' }, token);
    await waitFor(async () => (await log()).includes('30 132'), 10_000, 'the new size');
    assert.equal((await viaBridge(client, 'process_manage', { action: 'poll', session_id: id }, token)).data.tty, true);

    const plain = await prepareJob(client, token, 'sleep 30', workdir('resize-plain'));
    await viaBridge(client, 'job_start', plain, token);
    const plainList = (await viaBridge(client, 'process_manage', { action: 'list' }, token)).data.processes as Array<Record<string, unknown>>;
    const plainProc = plainList.find((p) => p.job_id === plain.job_id)!;
    assert.equal(plainProc.tty, false);
    const refused = await viaBridge(client, 'process_manage', { action: 'resize', session_id: plainProc.session_id, cols: 100, rows: 20 }, token);
    assert.equal(refused.data.error, 'PROCESS_NOT_A_TTY');
    for (const j of [job, plain]) assert.equal((await viaBridge(client, 'job_cancel', j)).data.state, 'cancelled');
    await client.close();
  });

  test('window sizes are bounded, and only a PTY job takes one', async () => {
    const { client, token } = await openSession(gw.mcpUrl);
    const tooWide = await viaBridge(client, 'job_prepare', { command: 'true', workdir: workdir('bounds'), pty: true, cols: 501 }, token);
    assert.equal(tooWide.isError, true);
    assert.equal(tooWide.data.error, 'INVALID_ARGUMENTS');
    const withoutPty = await viaBridge(client, 'job_prepare', { command: 'true', workdir: workdir('bounds'), rows: 20 }, token);
    assert.equal(withoutPty.data.error, 'INVALID_ARGUMENTS');
    assert.match(String(withoutPty.data.message), /pty: true/);
    await client.close();
  });
});
