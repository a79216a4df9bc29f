import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestGateway } from '../../helpers/gateway.js';

test('/healthz is liveness only: uptime, in-flight counters and catalog size', async () => {
  const gw = await startTestGateway();
  try {
    const res = await fetch(`${gw.url}/healthz`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.status, 'ok');
    assert.equal(typeof body.uptime_seconds, 'number');
    assert.equal(body.inflight_requests, 0);
    assert.equal(body.inflight_native_calls, 0);
    assert.equal(body.catalog_size, gw.gateway.catalog.size);
    assert.equal(body.public_tools, 6);
  } finally {
    await gw.close();
  }
});

test('/readyz is 200 when every required component is ready, with per-component status', async () => {
  const gw = await startTestGateway();
  try {
    const res = await fetch(`${gw.url}/readyz`);
    const body = (await res.json()) as { status: string; components: Record<string, { ready: boolean; required: boolean; status: string }> };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.components.startup_files!.ready, true);
    assert.equal(body.components.memory!.ready, false, 'a missing backend is reported, not hidden');
    assert.equal(body.components.memory!.status, 'not_configured', 'this test home has no honcho.json and no HONCHO_* variables');
    assert.equal(body.components.memory!.required, false, 'memory is optional in this test configuration');
  } finally {
    await gw.close();
  }
});

test('/readyz is 503 naming the memory backend when it is required but not configured', async () => {
  const gw = await startTestGateway({ env: { HERMES_MCP_OPTIONAL_COMPONENTS: '' } });
  try {
    const res = await fetch(`${gw.url}/readyz`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { components: Record<string, { status: string; reason: string }> };
    assert.equal(body.components.memory!.status, 'not_configured');
    assert.match(body.components.memory!.reason, /memory backend not configured: no Honcho API key or base URL/);
  } finally {
    await gw.close();
  }
});

test('a missing HERMES_HOME is reported by /readyz, not a crash; /healthz stays up', async () => {
  // Missing, but under the temp directory like every test home (the job-database guard insists).
  const gw = await startTestGateway({ env: { HERMES_HOME: join(tmpdir(), `hmcp-missing-home-${process.pid}`) } });
  try {
    assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    const res = await fetch(`${gw.url}/readyz`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { components: Record<string, { ready: boolean; reason: string }>; job_admission: { accepting: boolean; store: string } };
    assert.equal(body.components.startup_files!.ready, false);
    assert.match(body.components.startup_files!.reason, /STARTUP_FILE_MISSING/);
    // No home, so no job database either: jobs say so instead of crashing the gateway.
    assert.equal(body.job_admission.store, 'unavailable');
    assert.equal(body.job_admission.accepting, false);
  } finally {
    await gw.close();
  }
});

test('/readyz reads the startup files exactly as startup_context does (an oversized file fails it)', async () => {
  const gw = await startTestGateway({ limits: { startupMaxFileBytes: 1024 } });
  try {
    assert.equal((await fetch(`${gw.url}/readyz`)).status, 200);
    writeFileSync(join(gw.home, 'memories', 'USER.md'), 'x'.repeat(2048));
    const res = await fetch(`${gw.url}/readyz`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { components: Record<string, { reason: string }> };
    assert.match(body.components.startup_files!.reason, /STARTUP_FILE_TOO_LARGE/);
    rmSync(join(gw.home, 'memories', 'USER.md'));
    assert.equal((await fetch(`${gw.url}/readyz`)).status, 200, 'USER.md is optional');
  } finally {
    await gw.close();
  }
});
