import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { cronjobReadiness } from '../../../supervisor/tools/guarded/cronjob/index.js';
import { FIXTURE_JOB_ID, callContext, cronCaller, directCronjob, homeWithCron, jobsPath, sha256 } from '../../fixtures/cron-home.js';
import { hermes } from '../../helpers/hermes.js';

// The cronjob tool built directly over a home whose jobs.json the pinned Hermes wrote: the host's
// permission setting as the tool applies it, the answers without a Hermes to call, and readiness
// with and without one. What a mutation writes and refuses is Hermes' own code's (cronjob.test.ts,
// fidelity/cronjob.test.ts); the pieces alone are tested at their mirrored paths under cronjob/.

describe("the host's permission setting, as the tool applies it", () => {
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
