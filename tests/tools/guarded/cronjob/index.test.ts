import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { FIXTURE_JOB_ID, callContext, directCronjob, homeWithCron, jobsPath, sha256 } from '../../../fixtures/cron-home.js';

// The cronjob tool built directly over a home whose jobs.json the pinned Hermes wrote: the host's
// permission setting as the tool applies it, the arguments each action takes, and the answers
// without a Hermes to call. What a mutation writes and refuses is Hermes' own code's (cronjob.test.ts,
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

describe("the tool's words and its arguments", () => {
  test("the description states the host's mutation setting", async () => {
    const home = homeWithCron();
    try {
      assert.match((await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'on' })).tool.description, /enabled on this host \(HERMES_MCP_CRONJOB_MUTATIONS=on\)/);
      assert.match((await directCronjob(home, {})).tool.description, /DISABLED on this host \(HERMES_MCP_CRONJOB_MUTATIONS=off\); only list works/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("an argument that does not apply to the action is INVALID_ARGUMENTS, named, with success false; an alias is its action's", async () => {
    const home = homeWithCron();
    try {
      const { tool } = await directCronjob(home, { HERMES_MCP_CRONJOB_MUTATIONS: 'off' });
      await assert.rejects(tool.handler({ action: 'list', job_id: FIXTURE_JOB_ID }, callContext()), (e: { code?: string; message?: string; details?: Record<string, unknown> }) => {
        assert.equal(e.code, 'INVALID_ARGUMENTS');
        assert.equal(e.message, "cronjob: 'job_id' does not apply to action 'list' (it takes: include_disabled); nothing was written.");
        assert.equal(e.details?.success, false);
        return true;
      });
      await assert.rejects(tool.handler({ action: 'resume', job_id: FIXTURE_JOB_ID, name: 'x', reason: 'y' }, callContext()), {
        code: 'INVALID_ARGUMENTS',
        message: "cronjob: 'name', 'reason' do not apply to action 'resume' (it takes: job_id); nothing was written.",
      });
      // run_now is run: its arguments are run's, and as a mutation it is refused by the host setting.
      await assert.rejects(tool.handler({ action: 'run_now', job_id: FIXTURE_JOB_ID, confirm: true }, callContext()), (e: { code?: string; details?: Record<string, unknown> }) => {
        assert.equal(e.code, 'CRONJOB_MUTATIONS_DISABLED');
        assert.equal(e.details?.success, false);
        return true;
      });
      const listed = await tool.handler({ action: 'list', include_disabled: false }, callContext());
      assert.equal(listed.structured!.success, true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
