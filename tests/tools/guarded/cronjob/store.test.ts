import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cronPaths, loadJobs, parseJobsText } from '../../../../supervisor/tools/guarded/cronjob/store.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

// Hermes' jobs.json as `list` reads it: tolerantly, like cron/jobs.py load_jobs; anything that is
// not a job list is CRONJOB_STORE_INVALID.

test('cronPaths: the cron directory, jobs file, lock file and output directory under HERMES_HOME', () => {
  assert.deepEqual(cronPaths('/h'), { cronDir: '/h/cron', jobsFile: '/h/cron/jobs.json', lockFile: '/h/cron/.jobs.lock', outputDir: '/h/cron/output' });
});

test('tolerant loading: raw control characters, a bare list, an empty object; anything else is CRONJOB_STORE_INVALID', () => {
  assert.deepEqual(parseJobsText('{"jobs": [{"id": "a", "prompt": "line1\nline2"}]}'), [{ id: 'a', prompt: 'line1\nline2' }]); // strict=False
  assert.deepEqual(parseJobsText('{"jobs": [{"id": "a", "prompt": "tab\there \\" quote\u0001"}]}'), [{ id: 'a', prompt: 'tab\there " quote\u0001' }]);
  assert.deepEqual(parseJobsText('[{"id": "a"}]'), [{ id: 'a' }]); // bare list
  assert.deepEqual(parseJobsText('{}'), []);
  assert.deepEqual(parseJobsText('{"jobs": null}'), []);
  for (const bad of ['"text"', 'null', '3', '{"jobs": 3}', '{"jobs": [1]}', '{"jobs": [[]]}', '[null]', '{"jobs": [']) assert.throws(() => parseJobsText(bad), { code: 'CRONJOB_STORE_INVALID' });
  assert.throws(() => parseJobsText('null'), /expected \{"jobs": \[\.\.\.\]\}, got null/);
  assert.throws(() => parseJobsText('"s"'), /got string/);
  assert.throws(() => parseJobsText('{"jobs": ['), /is not valid JSON/);
});

test('loadJobs: a missing file or cron directory is an empty list; a directory, an unreadable or corrupt file is CRONJOB_STORE_INVALID', async () => {
  const dir = temp.make('cron-store-');
  {
    assert.deepEqual(await loadJobs(join(dir, 'cron', 'jobs.json')), []);
    writeFileSync(join(dir, 'file'), 'x');
    assert.deepEqual(await loadJobs(join(dir, 'file', 'jobs.json')), []); // ENOTDIR
    const paths = cronPaths(dir);
    mkdirSync(paths.cronDir);
    writeFileSync(paths.jobsFile, JSON.stringify({ jobs: [{ id: 'j1' }, { id: 'j2' }], updated_at: 'now' }));
    assert.deepEqual(await loadJobs(paths.jobsFile), [{ id: 'j1' }, { id: 'j2' }]);
    await assert.rejects(loadJobs(paths.cronDir), { code: 'CRONJOB_STORE_INVALID', message: 'cron/jobs.json is not a regular file' });
    writeFileSync(paths.jobsFile, 'not json');
    await assert.rejects(loadJobs(paths.jobsFile), { code: 'CRONJOB_STORE_INVALID' });
    if (process.getuid?.() !== 0) {
      writeFileSync(paths.jobsFile, '[]');
      chmodSync(paths.jobsFile, 0o000);
      await assert.rejects(loadJobs(paths.jobsFile), { code: 'CRONJOB_STORE_INVALID', message: 'cannot read cron/jobs.json: EACCES' });
    }
  }
});
