import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { CallContext } from '../../../supervisor/core/tool-types.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { ExecuteCodePool } from '../../../supervisor/tools/execute-code/index.js';
import { createWorkerRuntime } from '../../../supervisor/platform/spawning/worker-runtime.js';
import { ESCAPE_SCRIPT, killSurvivors, newMarker, waitForNoSurvivors, waitForSurvivors } from '../../helpers/escapees.js';
import { tempDirs } from '../../helpers/temp.js';

// Without a PID namespace (the degraded subreaper mode, forced here), an execute_code unit's init is
// a child subreaper: whatever the script started and orphaned, even with its environment (and so
// the gateway's sweep tag) cleared, re-parents to it and is killed when the script ends.

const temp = tempDirs();
const markers: string[] = [];
after(() => {
  for (const m of markers) killSurvivors(m);
  temp.removeAll();
});

test('subreaper mode: orphans of the script, tagged or not, die with it', async (t) => {
  const home = temp.make('hmcp-fallback-home-');
  const runtime = createWorkerRuntime(loadConfig({ HERMES_HOME: home, HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.state'), HERMES_MCP_TERMINAL_CWD: home, HERMES_MCP_ISOLATION: 'subreaper' }), process.env);
  if (runtime.isolation.mode !== 'subreaper') return t.skip(`subreaper mode unavailable here: ${runtime.isolation.reason}`);
  const pool = new ExecuteCodePool(runtime, async () => ({}));
  try {
    const marker = newMarker();
    markers.push(marker);
    // An env-cleared, setsid'd double fork (no tag, not in the unit's process group) plus the usual three.
    const untagged = `setsid bash -c "env -i bash -c 'exec -a ${marker}-noenv sleep 600' &"`;
    const code = [
      'import subprocess, time',
      `subprocess.run(["bash", "-c", ${JSON.stringify(untagged)}])`,
      `subprocess.Popen(["bash", ${JSON.stringify(ESCAPE_SCRIPT)}, ${JSON.stringify(marker)}, "600"])`,
      'time.sleep(0.8)',
      'print("started")',
    ].join('\n');
    const ctx: CallContext = { owner: { id: `request:${randomUUID()}`, kind: 'request' }, signal: new AbortController().signal, callId: randomUUID(), era: 'modern', callNested: () => Promise.reject(new Error('nested calls are not part of this test')) };
    const r = await pool.run(code, ctx, home);
    assert.equal(r.status, 'success', JSON.stringify(r));
    assert.match(r.output, /started\n$/);
    assert.deepEqual(await waitForNoSurvivors(marker), []);
    assert.equal((await waitForSurvivors(marker, 1, 300)).length, 0);
  } finally {
    await pool.close();
  }
});
