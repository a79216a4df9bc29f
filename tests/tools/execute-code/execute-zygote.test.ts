import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { launchGateway } from '../../../bench/launch.js';
import { descendantsOf, processStartTime } from '../../../shared/proc.js';
import { ESCAPEE_COUNT, ESCAPE_SCRIPT, killSurvivors, namespaceInitAbove, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { connect, optionalComponents, startTestGateway, viaBridge } from '../../helpers/gateway.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor, within } from '../../helpers/wait.js';
import { cmdline, parentOf } from '../../helpers/procfs.js';

// The unit zygote (workers/execute/zygote.py): with PID namespaces available, execute_code units are
// forked from one warm interpreter per gateway, each still the init of a new PID namespace of its
// own; killing the zygote kills the units it holds and the next call gets a new one; SIGKILL of
// the gateway leaves nothing behind; a zygote that cannot start leaves calls to spawned units.

const temp = tempDirs();
const markers: string[] = [];
const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const m of markers) killSurvivors(m);
  temp.removeAll();
});

/** The zygote runs its staged copy (in its private directory under the state dir), never the package's file. */
const ZYGOTE = '/workers/zygote.py';



/** The zygotes among `parent`'s children (a unit forked from one carries its command line too). */
function zygotesOf(parent: number): number[] {
  return descendantsOf(parent).filter((pid) => parentOf(pid) === parent && cmdline(pid).includes(ZYGOTE));
}

function ancestors(pid: number): number[] {
  const out: number[] = [];
  for (let p = parentOf(pid); p > 1 && out.length < 32; p = parentOf(p)) out.push(p);
  return out;
}

const escapeeScript = (marker: string, then: string) =>
  ['import subprocess', `subprocess.Popen(["bash", ${JSON.stringify(ESCAPE_SCRIPT)}, ${JSON.stringify(marker)}, "600"])`, then].join('\n');

function marked(): string {
  const marker = newMarker();
  markers.push(marker);
  return marker;
}

test('units are forked by one zygote, each the init of a new PID namespace of its own', async (t) => {
  const gw = await startTestGateway({ limits: { executeCodeDeadlineSeconds: 20 } });
  try {
    if (gw.native.runtime.isolation.mode !== 'pid-namespace') return t.skip('this host has no PID namespaces for workers');
    const client = await connect(gw.mcpUrl, 'modern');
    const go = join(gw.home, 'go');
    const [a, b] = [marked(), marked()];
    const wait = `import os, time\nwhile not os.path.exists(${JSON.stringify(go)}):\n    time.sleep(0.01)\nprint(os.getpid(), os.getppid())`;
    const calls = [a, b].map((m) => viaBridge(client, 'execute_code', { code: escapeeScript(m, wait) }));
    try {
      const inits = [];
      for (const m of [a, b]) {
        const escapees = await waitForSurvivors(m, ESCAPEE_COUNT);
        assert.ok(escapees.length >= ESCAPEE_COUNT, 'escapees started');
        inits.push(namespaceInitAbove(escapees[0]!));
      }
      const zygotes = zygotesOf(process.pid);
      assert.equal(zygotes.length, 1, 'one zygote, a child of the gateway');
      for (const init of inits) {
        assert.ok(init, 'the unit init above the escapees');
        assert.ok(ancestors(init).includes(zygotes[0]!), `unit init ${init} descends from the zygote ${zygotes[0]}`);
        assert.ok(cmdline(init).includes(ZYGOTE), 'forked, not spawned');
      }
      const namespaces = inits.map((pid) => readlinkSync(`/proc/${pid}/ns/pid`));
      assert.notEqual(namespaces[0], namespaces[1], 'each unit has a PID namespace of its own');
      assert.notEqual(namespaces[0], readlinkSync('/proc/self/ns/pid'));
    } finally {
      writeFileSync(go, '');
    }
    for (const r of await Promise.all(calls)) {
      assert.equal(r.data.status, 'success', JSON.stringify(r.data));
      assert.equal(r.data.output, '2 1\n', 'the script is PID 2 under its init, as in a spawned unit');
    }
    for (const m of [a, b]) assert.deepEqual(await waitForNoSurvivors(m), []);
    await client.close();
  } finally {
    await gw.close();
  }
});

test('SIGKILL of the zygote mid-script: the call fails, its escapees die, the next call gets a new zygote', async (t) => {
  const gw = await startTestGateway({ limits: { executeCodeDeadlineSeconds: 20 } });
  try {
    if (gw.native.runtime.isolation.mode !== 'pid-namespace') return t.skip('this host has no PID namespaces for workers');
    const client = await connect(gw.mcpUrl, 'modern');
    const marker = marked();
    const pending = viaBridge(client, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(60)') });
    assert.ok((await waitForSurvivors(marker, ESCAPEE_COUNT)).length >= ESCAPEE_COUNT, 'escapees started');
    const [zygote] = zygotesOf(process.pid);
    assert.ok(zygote, 'the zygote');
    const held = descendantsOf(zygote).length;
    assert.ok(held > 0, 'units held by the zygote');
    process.kill(zygote, 'SIGKILL');
    const r = await within(pending, 10_000, 'the call to end');
    assert.equal(r.data.status, 'error', JSON.stringify(r.data));
    assert.match(String(r.data.error), /worker failed/);
    assert.deepEqual(await waitForNoSurvivors(marker), [], 'the in-flight unit and its escapees died with the zygote');
    const next = await viaBridge(client, 'execute_code', { code: 'print("again")' });
    assert.equal(next.data.status, 'success', JSON.stringify(next.data));
    assert.equal(next.data.output, 'again\n');
    const [fresh] = await waitFor(() => (zygotesOf(process.pid).length === 1 ? zygotesOf(process.pid) : undefined), 5000, 'a new zygote');
    assert.notEqual(fresh, zygote);
    assert.equal(processStartTime(zygote), undefined, 'the old zygote is gone');
    await client.close();
  } finally {
    await gw.close();
  }
});

test('SIGKILL of the gateway process mid-script leaves no escapee, unit or zygote behind', async (t) => {
  const home = temp.make('hmcp-zygote-kill-');
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const { child, port } = await launchGateway(home, { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  if (((await (await fetch(`${base}/healthz`)).json()) as { isolation?: string }).isolation !== 'pid-namespace') {
    child.kill('SIGKILL');
    return t.skip('this host has no PID namespaces for workers');
  }
  const client = await connect(`${base}/mcp`, 'modern');
  const marker = marked();
  void viaBridge(client, 'execute_code', { code: escapeeScript(marker, 'import time\ntime.sleep(60)') }).catch(() => {});
  const escapees = await waitForSurvivors(marker, ESCAPEE_COUNT);
  assert.ok(escapees.length >= ESCAPEE_COUNT, 'escapees started (a setsid double fork among them)');
  const [zygote] = zygotesOf(child.pid!);
  assert.ok(zygote, 'the gateway runs a zygote');
  const init = namespaceInitAbove(escapees[0]!);
  assert.ok(init && ancestors(init).includes(zygote), 'the script runs in a zygote-forked unit');
  // Everything of the zygote's, with start times: a pid seen again later may be a new process.
  const tree = [zygote, ...descendantsOf(zygote)].map((pid) => ({ pid, start: processStartTime(pid) }));
  child.kill('SIGKILL');
  assert.deepEqual(await waitForNoSurvivors(marker), []);
  const alive = () => tree.filter((p) => p.start !== undefined && processStartTime(p.pid) === p.start).map((p) => `${p.pid} ${cmdline(p.pid)}`);
  await waitFor(() => alive().length === 0, 3000, 'the zygote and every unit process to die').catch(() => {});
  assert.deepEqual(alive(), []);
  await client.close().catch(() => {});
});

test('a zygote that cannot start is logged once, and units are spawned instead', async () => {
  // An interpreter that refuses to run the zygote (and runs everything else as usual).
  const bin = temp.make('hmcp-zygote-python-');
  const python = join(bin, 'python3');
  writeFileSync(python, `#!/bin/sh\ncase "$1" in *zygote.py) echo "no zygote here" >&2; exit 3;; esac\nexec /usr/bin/python3 "$@"\n`, { mode: 0o755 });
  const gw = await startTestGateway({ env: { HERMES_MCP_PYTHON: python } });
  try {
    const client = await connect(gw.mcpUrl, 'modern');
    const zygoteLogs = () => gw.logs.filter((l) => l.event === 'worker_failed' && l.worker === 'execute-zygote');
    let afterFirst = 0;
    for (let i = 0; i < 4; i++) {
      const r = await viaBridge(client, 'execute_code', { code: `print(${i})` });
      assert.equal(r.data.status, 'success', JSON.stringify(r.data));
      assert.equal(r.data.output, `${i}\n`);
      if (i === 0) afterFirst = zygoteLogs().length;
    }
    // Its exit, and what follows from it, said once: no zygote is tried again.
    const said = zygoteLogs();
    assert.equal(said.length, afterFirst, JSON.stringify(said));
    const unavailable = said.filter((l) => /unit zygote unavailable/.test(String(l.reason)));
    assert.equal(unavailable.length, 1, JSON.stringify(said));
    assert.match(String(unavailable[0]!.reason), /spawned one by one from now on: .*no zygote here/);
    assert.deepEqual(zygotesOf(process.pid), []);
    await client.close();
  } finally {
    await gw.close();
  }
});
