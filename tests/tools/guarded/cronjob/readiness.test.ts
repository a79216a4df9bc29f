import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../../supervisor/platform/config.js';
import { cronjobReadiness } from '../../../../supervisor/tools/guarded/cronjob/readiness.js';
import { cronCaller, homeWithCron, jobsPath, sha256 } from '../../../fixtures/cron-home.js';
import { hermes } from '../../../helpers/hermes.js';

// The cronjob /readyz component over a home whose jobs.json the pinned Hermes wrote.

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

  test('a home without jobs.json has an empty list: ready; an unreadable setting reports no mutations', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cron-ready-'));
    try {
      const config = loadConfig({ HERMES_HOME: home, HERMES_MCP_PORT: '0', HERMES_MCP_ROOTS: home, HERMES_MCP_STATE_DIR: join(home, '.gateway-state') });
      assert.deepEqual(await cronjobReadiness({ ...config, cronjobMutations: 'yes please' }, undefined).probe(), {
        ready: true,
        status: 'ok',
        details: { jobs: 0, mutations: [], hermes_calls: false },
      });
      const all = await cronjobReadiness({ ...config, cronjobMutations: 'on' }, undefined).probe();
      assert.equal(all.status, 'no_hermes');
      assert.equal(
        all.reason,
        'cron mutations are allowed (HERMES_MCP_CRONJOB_MUTATIONS=on) but no Hermes Agent was found to make them: they answer HERMES_AGENT_NOT_INSTALLED; list works',
      );
      assert.deepEqual(all.details, { jobs: 0, mutations: ['create', 'update', 'pause', 'resume', 'remove', 'run'], hermes_calls: false });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
