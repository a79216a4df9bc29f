import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../../supervisor/platform/config.js';
import { Zygote } from '../../../../supervisor/tools/execute-code/units/zygote.js';
import { WorkerProcess } from '../../../../supervisor/platform/spawning/worker-process.js';
import { createWorkerRuntime, type SpawnOptions, type WorkerEntry, type WorkerProtocols, type WorkerRuntime } from '../../../../supervisor/platform/spawning/worker-runtime.js';
import { zygoteProtocol, type ZygoteProtocol } from '../../../../shared/worker-protocol/zygote.js';
import { tempDirs } from '../../../helpers/temp.js';
import { within } from '../../../helpers/wait.js';
import { parentOf } from '../../../helpers/procfs.js';

// Without root the unit zygote cannot make a PID namespace itself: each unit gets a holder that
// unshares a user namespace (root mapped to the gateway's uid, setgroups denied, as
// `unshare --map-root-user`), a PID and a mount namespace, and forks the unit's init. As root
// (the usual test host) that path is otherwise never taken, so here the zygote runs as `nobody`.

const temp = tempDirs();
after(() => temp.removeAll());

const NOBODY = 65534;


test('as a non-root user, every unit gets a holder and a user namespace of its own', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to run the zygote as another user (as non-root every zygote test takes this path)');
  const home = temp.make('hmcp-zygote-userns-');
  chmodSync(home, 0o755);
  const base = createWorkerRuntime(loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, 'state'), HERMES_MCP_TERMINAL_CWD: home }), process.env);
  if (base.isolation.mode !== 'pid-namespace') return t.skip('this host has no PID namespaces for workers');
  // The zygote as nobody, reaching a unit socket nobody may use (the gateway's own is 0600 in a 0700 directory).
  const dir = join(home, 'zygote');
  let zygoteProcess: WorkerProcess<ZygoteProtocol> | undefined;
  const runtime: WorkerRuntime = {
    ...base,
    privateDir: () => {
      mkdirSync(dir, { mode: 0o755 });
      return dir;
    },
    spawnWorker: <E extends WorkerEntry>(entry: E, options: SpawnOptions = {}) => {
      assert.equal(entry, 'execute-zygote');
      // The copy the gateway staged beside the socket: nobody may not be able to enter the package
      // (a checkout under a directory only root may enter).
      const script = options.script ?? '(none)';
      assert.ok(script.startsWith(`${dir}/`), `the zygote runs its staged copy, not ${script}`);
      zygoteProcess = new WorkerProcess<ZygoteProtocol>({
        protocol: zygoteProtocol,
        entry: script,
        interpreter: '/usr/bin/python3',
        scriptIo: true,
        isolation: { ...base.isolation, prefix: ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--pdeathsig', 'KILL'] },
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/', ...options.env },
        cwd: '/',
        oneShot: true,
      });
      return zygoteProcess as unknown as WorkerProcess<WorkerProtocols[E]>;
    },
  };
  const zygote = new Zygote(runtime, { PYTHONDONTWRITEBYTECODE: '1' });
  try {
    await within(zygote.ready, 15_000, 'the zygote');
    chmodSync(join(dir, 'units.sock'), 0o666);
    const unit = zygote.fork({ cwd: '/', env: { HERMES_RPC_SOCKET: '/nonexistent', HERMES_RPC_TOKEN: 'x' } });
    let out = '';
    unit.scriptIo.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await within(unit.waitFor((f) => f.type === 'ready'), 10_000, 'the unit');
    const init = unit.pid!;
    const holder = parentOf(init);
    assert.equal(parentOf(holder), zygoteProcess!.pid, 'zygote -> holder -> init');
    assert.match(readFileSync(`/proc/${init}/status`, 'utf8'), /^NSpid:\s+\d+\s+1$/m, 'the init is PID 1 of its namespace');
    assert.match(readFileSync(`/proc/${init}/status`, 'utf8'), new RegExp(`^Uid:\\s+${NOBODY}\\s`, 'm'), 'nobody, seen from outside');
    for (const ns of ['user', 'pid', 'mnt']) assert.notEqual(readlinkSync(`/proc/${init}/ns/${ns}`), readlinkSync(`/proc/${zygoteProcess!.pid}/ns/${ns}`), `a ${ns} namespace of its own`);
    const done = unit.waitFor((f) => f.type === 'done');
    unit.scriptIo.stdin.end('import os\nprint(os.getuid(), os.getpid(), open("/proc/self/uid_map").read().split(), open("/proc/self/setgroups").read().strip())\n');
    const frame = await within(done, 10_000, 'the script');
    await within(unit.exited, 10_000, 'the unit to end');
    assert.equal(frame.exitCode, 0, out);
    assert.equal(out, `0 2 ['0', '${NOBODY}', '1'] deny\n`, 'root inside, mapped to nobody; the script is PID 2 under its init');
  } finally {
    await zygote.close();
  }
  assert.equal(zygoteProcess?.alive, false, 'the zygote has stopped');
});
