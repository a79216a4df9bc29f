import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { HermesRelease } from '../../../supervisor/platform/hermes/release.js';
import { formatJob, normalizeJobRecord, repeatDisplay } from '../../../supervisor/tools/guarded/cronjob/format.js';
import { parseJobsText } from '../../../supervisor/tools/guarded/cronjob/store.js';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { cronjobReadiness } from '../../../supervisor/tools/guarded/cronjob/index.js';
import { parseCronjobMutations } from '../../../supervisor/tools/guarded/cronjob/permissions.js';
import { FIXTURE_JOB_ID, callContext, cronCaller, cronFixtureDir, directCronjob, homeWithCron, jobsPath, sha256 } from '../../fixtures/cron-home.js';
import { hermes } from '../../helpers/hermes.js';

// The pieces under cronjob the gateway keeps itself: reading jobs.json, the job view `list` shows
// (as 0.19.0 and as later Hermes show it), the host's permission setting and readiness. What a
// mutation writes and refuses is Hermes' own code's (cronjob.test.ts, fidelity/cronjob.test.ts).

const V019 = new HermesRelease('0.19.0');
const NEWEST = new HermesRelease(undefined);

describe('jobs.json and the job view', () => {
  test('tolerant loading: raw control characters, a bare list, an empty object; anything else is CRONJOB_STORE_INVALID', () => {
    assert.deepEqual(parseJobsText('{"jobs": [{"id": "a", "prompt": "line1\nline2"}]}'), [{ id: 'a', prompt: 'line1\nline2' }]); // strict=False
    assert.deepEqual(parseJobsText('[{"id": "a"}]'), [{ id: 'a' }]); // bare list
    assert.deepEqual(parseJobsText('{}'), []);
    for (const bad of ['"text"', 'null', '{"jobs": 3}', '{"jobs": [1]}', '{"jobs": [']) assert.throws(() => parseJobsText(bad), { code: 'CRONJOB_STORE_INVALID' });
  });

  test("formatted jobs follow Hermes' _format_job and _repeat_display, as 0.19.0 has them", () => {
    const fixture = (JSON.parse(readFileSync(join(cronFixtureDir(), 'jobs.json'), 'utf8')) as { jobs: Array<Record<string, unknown>> }).jobs[0]!;
    const formatted = formatJob(normalizeJobRecord(fixture, V019), V019);
    assert.equal(formatted.job_id, FIXTURE_JOB_ID);
    assert.equal(formatted.repeat, 'forever');
    assert.equal('pinned' in formatted, false);
    assert.equal(repeatDisplay({ repeat: { times: 1, completed: 0 } }), 'once');
    assert.equal(repeatDisplay({ repeat: { times: 1, completed: 1 } }), '1/1');
    assert.equal(repeatDisplay({ repeat: { times: 5, completed: 0 } }), '5 times');
    assert.equal(repeatDisplay({ repeat: { times: 5, completed: 2 } }), '2/5');
    const long = formatJob({ id: 'x', prompt: 'p'.repeat(120), script: 'watch.sh', no_agent: true, enabled_toolsets: ['web'], workdir: '/w' }, V019);
    assert.equal(long.prompt_preview, 'p'.repeat(100) + '...');
    assert.equal(long.name, 'p'.repeat(50));
    assert.deepEqual([long.script, long.no_agent, long.enabled_toolsets, long.workdir, long.deliver, long.state], ['watch.sh', true, ['web'], '/w', 'local', 'scheduled']);
    const legacy = normalizeJobRecord({ id: 'y', name: null, prompt: null, skill: 'one', schedule: { kind: 'cron', expr: '0 1 * * *' }, enabled: false }, V019);
    assert.deepEqual([legacy.name, legacy.prompt, legacy.skills, legacy.schedule_display, legacy.state], ['one', '', ['one'], '0 1 * * *', 'paused']);
    // 0.19.0 shows the stored state as it is, even on an enabled record.
    assert.equal(formatJob({ id: 'z', enabled: true, state: 'paused', paused_at: null }, V019).state, 'paused');
  });

  test("later Hermes' job view: pinned, the delivery and fire fields, the state derived from enabled, continuity and context_from", () => {
    const view = formatJob(
      {
        id: 'abc', prompt: 'p', model: ' gpt ', enabled: true, state: 'paused', paused_at: '2026-01-01T00:00:00+00:00', last_error: 'boom', last_fire_error: 'x',
        context_from: ['self', 'other'], attach_to_session: false, monitor_url: 'https://example.invalid/', interpreter: '/usr/bin/python3',
      },
      NEWEST,
    );
    assert.deepEqual(Object.keys(view), [
      'job_id', 'name', 'skill', 'skills', 'prompt_preview', 'model', 'provider', 'pinned', 'base_url', 'schedule', 'repeat', 'deliver', 'next_run_at', 'last_run_at', 'last_status',
      'last_delivery_error', 'last_delivery_unverified', 'last_fire_error', 'last_error', 'enabled', 'state', 'paused_at', 'paused_reason', 'monitor_url', 'interpreter', 'continuity',
      'context_from', 'attach_to_session',
    ]);
    assert.deepEqual([view.pinned, view.state, view.continuity, view.context_from, view.attach_to_session], [true, 'scheduled', true, ['other'], false]);
    assert.equal(formatJob({ id: 'u', model: '  ' }, NEWEST).pinned, false);
    assert.equal(formatJob({ id: 'h', enabled: false, paused_at: 'x' }, NEWEST).state, 'paused');
    assert.equal(formatJob({ id: 'c', enabled: false, state: 'completed' }, NEWEST).state, 'completed');
    assert.equal(normalizeJobRecord({ id: 'n', enabled: true, state: 'paused' }, NEWEST).state, 'scheduled');
  });
});

describe('host permission configuration (HERMES_MCP_CRONJOB_MUTATIONS)', () => {
  test('off by default; on; a list of actions; anything else fails closed', () => {
    assert.deepEqual([...parseCronjobMutations(undefined).allowed], []);
    assert.deepEqual([...parseCronjobMutations('off').allowed], []);
    assert.deepEqual([...parseCronjobMutations('ON').allowed], ['create', 'update', 'pause', 'resume', 'remove', 'run']);
    assert.deepEqual([...parseCronjobMutations('pause, resume').allowed], ['pause', 'resume']);
    const bad = parseCronjobMutations('pause,delete-everything');
    assert.deepEqual([...bad.allowed], []);
    assert.match(bad.error!, /mutations stay disabled/);
  });

  test('an action list allows only those actions; others are CRONJOB_MUTATIONS_DISABLED and write nothing', async () => {
    const home = homeWithCron();
    try {
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'pause,resume' });
      assert.match(tool.description, /only for pause, resume/);
      const before = sha256(jobsPath(home));
      await assert.rejects(tool.handler({ action: 'create', prompt: 'x', schedule: 'every 5m', confirm: true }, callContext()), { code: 'CRONJOB_MUTATIONS_DISABLED' });
      await assert.rejects(tool.handler({ action: 'remove', job_id: FIXTURE_JOB_ID, confirm: true }, callContext()), { code: 'CRONJOB_MUTATIONS_DISABLED' });
      assert.equal(sha256(jobsPath(home)), before);
      const out = await tool.handler({ action: 'pause', job_id: FIXTURE_JOB_ID, confirm: true }, callContext());
      assert.equal((out.structured!.job as Record<string, unknown>).state, 'paused');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('an invalid setting disables mutations, says why, and is logged', async () => {
    const home = homeWithCron();
    try {
      const { tool, logs } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'yes please' });
      await assert.rejects(tool.handler({ action: 'run', job_id: FIXTURE_JOB_ID, confirm: true }, callContext()), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, 'CRONJOB_MUTATIONS_DISABLED');
        assert.match(e.message!, /yes please/);
        return true;
      });
      assert.match(logs.join(''), /cronjob_permissions_invalid/);
      const listed = await tool.handler({ action: 'list' }, callContext());
      assert.equal(listed.structured!.count, 1, 'list still works');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('without a Hermes to call', () => {
  test('every mutation is HERMES_AGENT_NOT_INSTALLED, after the gateway\'s own checks and before anything is written; list still works', async () => {
    const home = homeWithCron();
    try {
      // No interpreter at all; and one that answers without Hermes (locate.ts: not_installed, the interpreter named).
      for (const env of [{}, { HERMES_MCP_HERMES_VERSION: '0.19.0' }, { HERMES_AGENT_PYTHON: '/usr/bin/python3' }] as Array<Record<string, string>>) {
        const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on', HERMES_AGENT_PYTHON: '', ...env });
        const before = sha256(jobsPath(home));
        for (const args of [
          { action: 'create', prompt: 'Count the otters', schedule: 'every 30m' },
          { action: 'update', job_id: FIXTURE_JOB_ID, name: 'renamed' },
          { action: 'pause', job_id: FIXTURE_JOB_ID },
          { action: 'resume', job_id: FIXTURE_JOB_ID },
          { action: 'remove', job_id: FIXTURE_JOB_ID },
          { action: 'run', job_id: FIXTURE_JOB_ID },
        ]) {
          await assert.rejects(tool.handler({ ...args, confirm: true }, callContext()), (e: { code?: string; message?: string; details?: Record<string, unknown> }) => {
            assert.equal(e.code, 'HERMES_AGENT_NOT_INSTALLED', e.message);
            assert.match(e.message!, /no Hermes Agent was found.*Nothing was written/);
            assert.equal(e.details?.success, false);
            return true;
          });
        }
        // The gateway's own checks still answer first.
        await assert.rejects(tool.handler({ action: 'create', prompt: 'x', schedule: 'every 30m' }, callContext()), { code: 'CONFIRMATION_REQUIRED' });
        await assert.rejects(tool.handler({ action: 'create', prompt: 'x', schedule: 'every 30m', deliver: 'not a target!', confirm: true }, callContext()), { code: 'INVALID_ARGUMENTS' });
        assert.equal(sha256(jobsPath(home)), before);
        assert.equal((await tool.handler({ action: 'list' }, callContext())).structured!.count, 1);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('cronjob readiness', () => {
  test('ready when the read-only list works, saying whether a Hermes makes the mutations; not ready on a corrupt jobs.json; never writes', async () => {
    const home = homeWithCron();
    try {
      const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state'), HERMES_AGENT_PYTHON: hermes().python });
      const caller = await cronCaller(config);
      const before = sha256(jobsPath(home));
      const ok = await cronjobReadiness({ ...config, cronjobMutations: 'pause' }, caller).probe();
      assert.deepEqual(ok, { ready: true, status: 'ok', details: { jobs: 1, mutations: ['pause'], hermes_calls: true } });
      // Without a Hermes to call, list still works: ready, and the mutations' state is said.
      const none = await cronjobReadiness({ ...config, cronjobMutations: 'pause' }, undefined).probe();
      assert.deepEqual([none.ready, none.status, none.details], [true, 'no_hermes', { jobs: 1, mutations: ['pause'], hermes_calls: false }]);
      assert.match(none.reason!, /HERMES_AGENT_NOT_INSTALLED/);
      assert.equal((await cronjobReadiness(config, undefined).probe()).status, 'ok', 'mutations off: nothing missing');
      assert.equal(sha256(jobsPath(home)), before);
      writeFileSync(jobsPath(home), 'not json'); // by hand: Hermes never writes this
      const bad = await cronjobReadiness(config, caller).probe();
      assert.deepEqual([bad.ready, bad.status], [false, 'error']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
