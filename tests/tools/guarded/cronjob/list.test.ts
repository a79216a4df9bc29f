import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import { loadConfig } from '../../../../supervisor/platform/config.js';
import { HermesRelease } from '../../../../supervisor/platform/hermes/release.js';
import { createLogger } from '../../../../supervisor/platform/telemetry.js';
import { cronjobLister } from '../../../../supervisor/tools/guarded/cronjob/list.js';
import { Slots } from '../../../../supervisor/tools/guarded/cronjob/slots.js';
import { FIXTURE_JOB_ID, homeWithCron, jobsPath } from '../../../fixtures/cron-home.js';

// cronjob's read-only list over a jobs.json the pinned Hermes wrote, without a Hermes to call.

const homes: string[] = [];
after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

function lister(home: string, version: string | undefined) {
  const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state') });
  return cronjobLister(config, quiet, new HermesRelease(version), undefined, new Slots(1));
}

function home(): string {
  const h = homeWithCron();
  homes.push(h);
  return h;
}

test("each job as the release's _format_job shows it; the count", async () => {
  const out = await lister(home(), '0.19.0')({}, new AbortController().signal);
  assert.equal(out.success, true);
  assert.equal(out.count, 1);
  const [job] = out.jobs as Array<Record<string, unknown>>;
  assert.equal(job!.job_id, FIXTURE_JOB_ID);
  assert.equal(job!.name, 'walrus-check');
  assert.equal('gateway_running' in out, false, '0.19.0 says nothing of its scheduler');
});

test("a release with the scheduler notice: with no Hermes to ask, gateway_running is Hermes' null", async () => {
  const out = await lister(home(), '0.22.2')({}, new AbortController().signal);
  assert.equal(out.count, 1);
  assert.equal(out.gateway_running, null);
});

test('no jobs: no scheduler notice; include_disabled false leaves out a disabled job', async () => {
  const h = home();
  const file = jobsPath(h);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { jobs: Array<Record<string, unknown>> };
  // By hand: a job Hermes marked disabled.
  doc.jobs[0]!.enabled = false;
  writeFileSync(file, JSON.stringify(doc));
  const list = lister(h, '0.22.2');
  assert.equal((await list({}, new AbortController().signal)).count, 1);
  const enabledOnly = await list({ include_disabled: false }, new AbortController().signal);
  assert.deepEqual([enabledOnly.count, enabledOnly.jobs, 'gateway_running' in enabledOnly], [0, [], false]);
});
