import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isGatewayError } from '../../../shared/errors.js';
import { TaskStore } from '../../../supervisor/tools/agent-tasks/tasks.js';
import { tempDirs } from '../../helpers/temp.js';

// hermes_status finds a run by scanning every task's run.json (runs accepted before a restart are
// not in the in-memory index). One bad file met on the way (oversized, a directory, a symlink)
// is skipped, never an error for every run id; a direct read still names what is wrong.

const temp = tempDirs();
after(() => temp.removeAll());

const record = (task: string, run: string) => JSON.stringify({ run_id: run, session_id: `gb-task-${task}`, task_id: task, agent: 'hermes', agent_base_url: 'http://127.0.0.1:8642', created_at: '2025-01-01T00:00:00.000Z' });

test('bad run.json files are skipped by the scan; a good one is still found; symlinks are never read', () => {
  const root = temp.make('hmcp-scan-');
  const dir = join(root, 'tasks');
  for (const t of ['aaa', 'bbb', 'ccc', 'zzz']) mkdirSync(join(dir, t), { recursive: true });
  writeFileSync(join(dir, 'aaa', 'run.json'), JSON.stringify({ run_id: 'run_big', agent: 'hermes', pad: 'x'.repeat(2000) }));
  mkdirSync(join(dir, 'bbb', 'run.json'));
  writeFileSync(join(root, 'elsewhere.json'), record('ccc', 'run_link'));
  symlinkSync(join(root, 'elsewhere.json'), join(dir, 'ccc', 'run.json'));
  writeFileSync(join(dir, 'zzz', 'run.json'), record('zzz', 'run_z'));

  const store = new TaskStore(dir, 512);
  assert.equal(store.findRun('run_missing'), undefined, 'a scan over every file, the oversized one included, answers "no such run"');
  assert.equal(store.findRun('run_z')?.task_id, 'zzz');
  assert.equal(store.findRun('run_link'), undefined, 'a symlinked run.json is not read');
  assert.equal(store.findRun('run_big'), undefined);
  assert.throws(() => store.readRun('aaa'), (e) => isGatewayError(e) && e.code === 'FILE_TOO_LARGE', 'a direct read still says why');
});
