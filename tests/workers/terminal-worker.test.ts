import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { terminalProtocol, type TerminalProtocol } from '../../shared/worker-protocol/terminal.js';
import { detectIsolation, type IsolationMode } from '../../supervisor/platform/spawning/isolation.js';
import { WorkerProcess } from '../../supervisor/platform/spawning/worker-process.js';
import { ESCAPEE_COUNT, escapeeCommand, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../helpers/escapees.js';

const entry = join(packageRoot(), 'dist', 'workers', 'terminal-worker.js');
const dirs: string[] = [];
const markers: string[] = [];
after(() => {
  for (const m of markers) killSurvivors(m);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hmcp-term-'));
  dirs.push(d);
  return d;
}

async function startWorker(mode: IsolationMode) {
  const isolation = detectIsolation(mode);
  assert.equal(isolation.mode, mode, `host does not allow ${mode}: ${isolation.reason}`);
  const worker = new WorkerProcess({ protocol: terminalProtocol, entry, isolation, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() }, cwd: '/' });
  await worker.waitFor((f) => f.type === 'ready');
  return worker;
}

async function exec(worker: WorkerProcess<TerminalProtocol>, command: string, options: { timeoutMs?: number; dir?: string; cwd?: string } = {}) {
  const r = await worker.request({ type: 'exec', command, cwd: options.cwd ?? '/', timeoutMs: options.timeoutMs ?? 10_000, stateDir: options.dir ?? stateDir(), maxOutputBytes: 1 << 20 });
  assert.ok(!('error' in r), `the command ran: ${JSON.stringify(r)}`);
  return r;
}

for (const mode of ['pid-namespace', 'subreaper'] as const) {
  describe(`terminal worker (${mode})`, () => {
    test('everything a command started dies when the command ends', async () => {
      const worker = await startWorker(mode);
      const marker = newMarker();
      markers.push(marker);
      const r = await exec(worker, escapeeCommand(marker, 0));
      assert.equal(r.exitCode, 0);
      assert.match(String(r.output), /ready/);
      assert.deepEqual(await waitForNoSurvivors(marker), []);
      await worker.kill();
    });

    test('on deadline the whole tree is killed and the exit code is 124', async () => {
      const worker = await startWorker(mode);
      const marker = newMarker();
      markers.push(marker);
      const r = await exec(worker, escapeeCommand(marker), { timeoutMs: 1500 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      assert.deepEqual(await waitForNoSurvivors(marker), []);
      await worker.kill();
    });

    test('SIGKILL of the worker mid-command leaves no survivor', async () => {
      const worker = await startWorker(mode);
      const marker = newMarker();
      markers.push(marker);
      void exec(worker, escapeeCommand(marker)).catch(() => {});
      assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'escapees started');
      process.kill(worker.pid!, 'SIGKILL');
      await worker.exited;
      assert.deepEqual(await waitForNoSurvivors(marker), []);
    });

    test('cwd and exported variables persist between commands of one owner', async () => {
      const worker = await startWorker(mode);
      const dir = stateDir();
      const work = stateDir();
      await exec(worker, `cd ${work} && export HMCP_TEST_VAR=kept`, { dir });
      const r = await exec(worker, 'pwd; echo "var=$HMCP_TEST_VAR"', { dir, cwd: work });
      assert.match(String(r.output), new RegExp(`${work}\\nvar=kept`));
      const other = await exec(worker, 'echo "var=$HMCP_TEST_VAR"', { dir: stateDir() });
      assert.match(String(other.output), /var=\n/, 'another state directory does not see it');
      await worker.kill();
    });
  });
}

test('SIGKILL of the supervisor itself leaves no survivor (pid-namespace mode)', async () => {
  const marker = newMarker();
  markers.push(marker);
  const sup = spawn(process.execPath, [join(packageRoot(), 'dist', 'tests', 'fixtures', 'mini-supervisor.js'), marker, 'pid-namespace'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => sup.stdout!.once('data', () => resolve()));
  assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'escapees started');
  sup.kill('SIGKILL');
  assert.deepEqual(await waitForNoSurvivors(marker), []);
});
