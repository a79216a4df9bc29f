import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeHermesHome, optionalComponents, startTestGateway } from '../../helpers/gateway.js';

// /readyz gives a top-level summary when it answers 503: each required component that is not ready,
// why, and the one thing to do about it. Missing project roots are reported at startup and there.

interface Readyz {
  status: string;
  reasons?: Array<{ component: string; reason: string; action: string }>;
  components: Record<string, { ready: boolean; status: string; reason?: string; action?: string; required: boolean; details?: Record<string, unknown> }>;
}

async function readyz(url: string): Promise<{ code: number; body: Readyz }> {
  const res = await fetch(`${url}/readyz`);
  return { code: res.status, body: (await res.json()) as Readyz };
}

test('a ready gateway has no reasons', async () => {
  const gw = await startTestGateway();
  try {
    const r = await readyz(gw.url);
    assert.equal(r.code, 200);
    assert.equal(r.body.reasons, undefined);
    assert.equal(r.body.components.roots?.status, 'ok');
  } finally {
    await gw.close();
  }
});

test('memory without Honcho: the reason names $HERMES_HOME/honcho.json first, the action says how to run without it', async () => {
  const gw = await startTestGateway({ env: { HERMES_MCP_OPTIONAL_COMPONENTS: optionalComponents('memory') } });
  try {
    const r = await readyz(gw.url);
    assert.equal(r.code, 503);
    const memory = r.body.reasons?.find((x) => x.component === 'memory');
    assert.ok(memory, JSON.stringify(r.body.reasons));
    assert.match(memory.reason, new RegExp(`looked at ${join(gw.home, 'honcho.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, `));
    assert.match(memory.action, /HERMES_MCP_OPTIONAL_COMPONENTS=memory/);
    assert.match(memory.action, /honcho\.json/);
    assert.deepEqual(r.body.reasons?.map((x) => x.component), ['memory'], 'only what blocks readiness is summarised');
  } finally {
    await gw.close();
  }
});

test('a missing SOUL.md: the action points at HERMES_HOME', async () => {
  const home = makeHermesHome();
  rmSync(join(home, 'SOUL.md'));
  const gw = await startTestGateway({ home });
  try {
    const r = await readyz(gw.url);
    assert.equal(r.code, 503);
    const startup = r.body.reasons?.find((x) => x.component === 'startup_files');
    assert.match(startup?.reason ?? '', /^STARTUP_FILE_MISSING/);
    assert.match(startup?.action ?? '', /HERMES_HOME/);
  } finally {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('a missing project root is logged at startup and shown in /readyz; readiness holds while one root exists', async () => {
  const home = makeHermesHome();
  const gone = join(home, 'no-such-project');
  const gw = await startTestGateway({ home, env: { HERMES_MCP_ROOTS: `${home}:${gone}` } });
  try {
    const r = await readyz(gw.url);
    assert.equal(r.code, 200);
    assert.equal(r.body.components.roots?.status, 'partial');
    assert.deepEqual(r.body.components.roots?.details?.missing, [gone]);
    assert.match(r.body.components.roots?.action ?? '', /mkdir -p/);
    const logged = gw.logs.find((l) => l.event === 'roots_missing');
    assert.deepEqual(logged?.missing, [gone]);
  } finally {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('no existing project root: not ready, with the terminal cwd it fell back to', async () => {
  const home = makeHermesHome();
  const gone = join(home, 'work');
  const gw = await startTestGateway({ home, env: { HERMES_MCP_ROOTS: gone } });
  try {
    const r = await readyz(gw.url);
    assert.equal(r.code, 503);
    const roots = r.body.reasons?.find((x) => x.component === 'roots');
    assert.match(roots?.reason ?? '', /no project root exists/);
    assert.match(roots?.action ?? '', new RegExp(`mkdir -p ${gone}`));
    assert.equal(typeof r.body.components.roots?.details?.terminal_cwd, 'string');
  } finally {
    await gw.close();
    rmSync(home, { recursive: true, force: true });
  }
});
