import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { FRAME_CAP_VAR } from '../../shared/worker-protocol/caps.js';
import { encodeFrame, FrameDecoder, type Frame } from '../../shared/worker-protocol/frame.js';
import { loadConfig } from '../../supervisor/platform/config.js';
import { createWorkerRuntime } from '../../supervisor/platform/spawning/worker-runtime.js';
import type { WorkerProcess } from '../../supervisor/platform/spawning/worker-process.js';
import type { ProtocolMessages } from '../../shared/worker-protocol/protocol.js';
import { tempDirs } from '../helpers/temp.js';
import { within } from '../helpers/wait.js';

// One frame cap at both ends of a worker channel, derived from workerTransportMaxBytes: the
// supervisor hands its cap to the worker in FRAME_CAP_VAR, the worker enforces that same cap, and
// the variable stays the channel's: neither a command nor an execute_code script sees it.

const temp = tempDirs();
const cleanup: Array<() => unknown> = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
  temp.removeAll();
});

function track<P extends ProtocolMessages>(worker: WorkerProcess<P>): WorkerProcess<P> {
  cleanup.push(() => worker.kill());
  return worker;
}

test('a terminal worker enforces the cap it was handed, and its commands do not inherit it', async () => {
  const entry = join(packageRoot(), 'dist', 'workers', 'terminal-worker.js');
  const child = spawn(process.execPath, [entry], {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: temp.make('hmcp-cap-home-'), [FRAME_CAP_VAR]: '1024' },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  cleanup.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const channel = child.stdio[3] as Duplex;
  const frames: Frame[] = [];
  const decoder = new FrameDecoder((f) => frames.push(f), () => {});
  channel.on('data', (chunk: Buffer) => decoder.push(chunk));
  const next = async (type: string): Promise<Frame> => {
    for (let i = 0; i < 500; i++) {
      const found = frames.find((f) => f.type === type);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no ${type} frame; stderr: ${stderr}`);
  };
  await next('ready');
  channel.write(encodeFrame({ type: 'exec', id: 'env', command: 'env', cwd: '/', timeoutMs: 10_000, stateDir: temp.make('hmcp-cap-state-'), maxOutputBytes: 512 }));
  const result = await next('result');
  assert.equal(result.exitCode, 0, JSON.stringify(result));
  assert.match(String(result.output), /^PATH=/m, 'the command printed its environment');
  assert.doesNotMatch(String(result.output), new RegExp(FRAME_CAP_VAR));

  // 2000 bytes: under the default cap, over the 1024 the worker was handed.
  channel.write(encodeFrame({ type: 'exec', id: 'big', command: `: ${'x'.repeat(1900)}`, cwd: '/', timeoutMs: 1000, stateDir: '/nonexistent', maxOutputBytes: 512 }, 1 << 20));
  await within(exited, 10_000, 'the worker to close on the oversized frame');
  assert.match(stderr, /worker: incoming frame announces \d+ bytes, over the 1024-byte cap; closing/);
});

test('the runtime derives the cap from workerTransportMaxBytes; an execute_code script and its commands never see it', async () => {
  const home = temp.make('hmcp-cap-home-');
  const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: temp.make('hmcp-cap-state-'), HERMES_MCP_WORKER_TRANSPORT_MAX_BYTES: '512' });
  const runtime = createWorkerRuntime(config, process.env);

  const terminal = track(runtime.spawnWorker('terminal-worker'));
  await within(terminal.waitFor((m) => m.type === 'ready'), 10_000, 'ready');
  await assert.rejects(
    terminal.request({ type: 'exec', command: `: ${'x'.repeat(2100)}`, cwd: '/', timeoutMs: 1000, stateDir: home, maxOutputBytes: 512 }),
    /exceeds the 2048-byte cap/,
    'the supervisor refuses to send a frame over 4 × workerTransportMaxBytes',
  );

  const unit = track(runtime.spawnWorker('execute-unit', { env: { PYTHONDONTWRITEBYTECODE: '1' } }));
  await within(unit.waitFor((m) => m.type === 'ready'), 15_000, 'ready');
  const command = await within(
    unit.request({ type: 'exec', command: `env | grep -c ${FRAME_CAP_VAR} || true`, cwd: '/', timeoutMs: 10_000, stateDir: temp.make('hmcp-cap-unit-'), maxOutputBytes: 512 }),
    10_000,
    'the command result',
  );
  assert.ok('output' in command, JSON.stringify(command));
  assert.equal(command.output.trim(), '0', "the command helper's commands do not inherit the cap");
  let stdout = '';
  unit.scriptIo.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const done = unit.waitFor((m) => m.type === 'done');
  unit.scriptIo.stdin.end(`import os\nprint(${JSON.stringify(FRAME_CAP_VAR)} in os.environ)`);
  assert.equal((await within(done, 10_000, 'the script')).exitCode, 0);
  await unit.kill();
  assert.equal(stdout, 'False\n');
});
