import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchGateway } from '../../../bench/launch.js';
import { stopChild } from '../../../bench/measure.js';
import { optionalComponents } from '../../helpers/gateway.js';
import { waitFor } from '../../helpers/wait.js';

// /healthz reports the supervisor's event-loop delay (the soak bench samples it over time): an
// idle loop reads near zero, and a supervisor thread held still for 400 ms (SIGSTOP of the real
// gateway bin, then SIGCONT) shows up as a delay of at least that.

type Delay = { window_seconds: number; p50_ms: number; p99_ms: number; max_ms: number };
const delayOf = async (port: number) => ((await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { event_loop_delay: Delay }).event_loop_delay;

test('/healthz event_loop_delay: near zero when idle, a 400 ms stall of the supervisor is reported', async () => {
  const home = mkdtempSync(join(tmpdir(), 'hmcp-eld-'));
  writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
  const { child, port } = await launchGateway(home, { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents() });
  try {
    await delayOf(port);
    await new Promise((r) => setTimeout(r, 300));
    const idle = await delayOf(port);
    assert.equal(idle.window_seconds, 10);
    assert.ok(idle.p50_ms < 50, JSON.stringify(idle));
    child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 400));
    child.kill('SIGCONT');
    let stalled = await delayOf(port);
    await waitFor(async () => (stalled = await delayOf(port)).max_ms >= 350, 5000, 'the stall to be reported').catch((e: Error) => assert.fail(`${e.message}: ${JSON.stringify(stalled)}`));
  } finally {
    child.kill('SIGCONT');
    await stopChild(child);
    rmSync(home, { recursive: true, force: true });
  }
});
