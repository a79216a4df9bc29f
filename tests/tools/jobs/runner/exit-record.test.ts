import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { completionFromRecord, readExitRecord } from '../../../../supervisor/tools/jobs/runner/exit-record.js';
import { tempDirs } from '../../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

test('an exit record is read when it is there and whole; a missing or torn one is no evidence', () => {
  const dir = temp.make('hmcp-exit-record-');
  assert.equal(readExitRecord(join(dir, 'none.json')), undefined);
  writeFileSync(join(dir, 'torn.json'), '{"exitCode": 0,');
  assert.equal(readExitRecord(join(dir, 'torn.json')), undefined);
  writeFileSync(join(dir, 'ok.json'), JSON.stringify({ exitCode: 0, signal: null, killed: false }));
  assert.deepEqual(readExitRecord(join(dir, 'ok.json')), { exitCode: 0, signal: null, killed: false });
});

test('a record becomes the completion it proves: success, failure, a signal, or a kill', () => {
  assert.equal(completionFromRecord(undefined), undefined);
  assert.deepEqual(completionFromRecord({ exitCode: 0, signal: null, killed: false }), { state: 'succeeded', exitCode: 0, signal: null, reason: 'exited' });
  assert.deepEqual(completionFromRecord({ exitCode: 2, signal: null, killed: false }), { state: 'failed', exitCode: 2, signal: null, reason: 'exited' });
  assert.deepEqual(completionFromRecord({ exitCode: null, signal: 'SIGTERM', killed: false }), { state: 'failed', exitCode: null, signal: 'SIGTERM', reason: 'signal SIGTERM' });
  assert.deepEqual(completionFromRecord({ exitCode: null, signal: null, killed: true }), { state: 'cancelled', exitCode: null, signal: 'SIGKILL', reason: 'killed' });
});
