import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isGatewayError } from '../../../shared/errors.js';
import { isBridgeTempFile, newTaskId, RESULT_FILE, RUN_FILE, SESSIONS_DIR, TaskStore, type RunRecord, type SessionRecord } from '../../../supervisor/tools/agent-tasks/tasks.js';
import { tempDirs } from '../../helpers/temp.js';

// The tasks directory (tasks.ts): task ids, run and result records, session rotations.
//
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

test('task ids: a letter or digit first, then up to 127 of [A-Za-z0-9._-]; anything else is INVALID_ARGUMENTS', () => {
  const store = new TaskStore(temp.make('hmcp-tasks-'), 4096);
  assert.equal(store.taskDir('a.b_c-1'), join(store.dir, 'a.b_c-1'));
  assert.equal(store.taskDir('x'.repeat(128)), join(store.dir, 'x'.repeat(128)));
  for (const bad of ['', '.hidden', '-x', '../up', 'a/b', 'x'.repeat(129), '.sessions']) {
    assert.throws(() => store.taskDir(bad), (e) => isGatewayError(e) && e.code === 'INVALID_ARGUMENTS', JSON.stringify(bad));
  }
  assert.match(newTaskId(), /^task-\d{8}T\d{6}-[0-9a-f]{8}$/);
  assert.notEqual(newTaskId(), newTaskId());
});

test('run and result records: written atomically (0600, in 0700 directories), read back, the owner taken from either', () => {
  const store = new TaskStore(join(temp.make('hmcp-tasks-'), 'tasks'), 4096);
  assert.equal(store.existingTaskDir('t1'), undefined);
  assert.equal(store.readRun('t1'), undefined);
  assert.equal(store.ownerOf('t1'), undefined);
  const run = JSON.parse(record('t1', 'run_1')) as RunRecord;
  store.writeRun(run);
  assert.equal(store.existingTaskDir('t1'), join(store.dir, 't1'));
  assert.equal(statSync(store.dir).mode & 0o777, 0o700);
  assert.equal(statSync(join(store.dir, 't1')).mode & 0o777, 0o700);
  assert.equal(statSync(join(store.dir, 't1', RUN_FILE)).mode & 0o777, 0o600);
  assert.deepEqual(store.readRun('t1'), run);
  assert.equal(store.ownerOf('t1'), 'hermes');
  assert.deepEqual(readdirSync(join(store.dir, 't1')), [RUN_FILE], 'no temp file left behind');
  assert.equal(store.findRun('run_1')?.task_id, 't1', 'from the index');

  store.writeResult({ id: 't2', status: 'completed', summary: 's', artifacts: [], next_steps: [], details: { agent: 'coder' } });
  assert.equal(store.readResult('t2')?.summary, 's');
  assert.equal(store.ownerOf('t2'), 'coder', 'no run.json: the result names the agent');
  store.writeResult({ id: 't3', status: 'completed', summary: 's', artifacts: [], next_steps: [], details: { agent: 7 } });
  assert.equal(store.ownerOf('t3'), undefined);
});

test('records that are not what they claim (no run_id, no status, not JSON) read as absent', () => {
  const store = new TaskStore(temp.make('hmcp-tasks-'), 4096);
  store.ensureTaskDir('t');
  writeFileSync(join(store.dir, 't', RUN_FILE), JSON.stringify({ run_id: 5, agent: 'hermes' }));
  writeFileSync(join(store.dir, 't', RESULT_FILE), '{not json');
  assert.equal(store.readRun('t'), undefined);
  assert.equal(store.readResult('t'), undefined);
  writeFileSync(join(store.dir, 't', RESULT_FILE), JSON.stringify({ summary: 'no status' }));
  assert.equal(store.readResult('t'), undefined);
});

test('a task path that is a file or a symlink is no task directory; ensureTaskDir refuses it with INVALID_PATH', () => {
  const store = new TaskStore(temp.make('hmcp-tasks-'), 4096);
  const elsewhere = temp.make('hmcp-tasks-elsewhere-');
  writeFileSync(join(store.dir, 'file'), 'x');
  symlinkSync(elsewhere, join(store.dir, 'link'));
  for (const id of ['file', 'link']) {
    assert.equal(store.existingTaskDir(id), undefined);
    assert.throws(() => store.ensureTaskDir(id), (e) => isGatewayError(e) && e.code === 'INVALID_PATH', id);
  }
  assert.equal(store.ensureTaskDir('fresh'), join(store.dir, 'fresh'));
  assert.equal(store.ensureTaskDir('fresh'), join(store.dir, 'fresh'), 'an existing directory is fine');
});

test('session rotations: followed compare-and-set from the session continued now; ids the bridge cannot send back are ignored', () => {
  const store = new TaskStore(temp.make('hmcp-tasks-'), 4096);
  const bridge = 'gb-sess-hermes-main';
  assert.equal(store.hermesSessionOf(bridge), bridge, 'never rotated: itself');
  assert.equal(store.followRotation(bridge, bridge, undefined, 't1'), undefined);
  assert.equal(store.followRotation(bridge, bridge, bridge, 't1'), undefined, 'the same id is no rotation');
  for (const bad of ['../x', 'a..b', '-x', 'x'.repeat(257), 'a b']) assert.equal(store.followRotation(bridge, bridge, bad, 't1'), undefined, bad);
  assert.equal(existsSync(join(store.dir, SESSIONS_DIR)), false, 'nothing recorded');

  assert.equal(store.followRotation(bridge, bridge, '20250101_abc:1', 't1'), '20250101_abc:1');
  assert.equal(store.hermesSessionOf(bridge), '20250101_abc:1');
  const saved = JSON.parse(readFileSync(join(store.dir, SESSIONS_DIR, `${bridge}.json`), 'utf8')) as SessionRecord;
  assert.deepEqual({ ...saved, updated_at: '' }, { bridge_session_id: bridge, hermes_session_id: '20250101_abc:1', rotated_from: bridge, task_id: 't1', updated_at: '' });
  assert.equal(statSync(join(store.dir, SESSIONS_DIR)).mode & 0o777, 0o700);

  // A late answer about the session before: changes nothing.
  assert.equal(store.followRotation(bridge, bridge, 'other', 't0'), undefined);
  assert.equal(store.hermesSessionOf(bridge), '20250101_abc:1');
  assert.equal(store.followRotation(bridge, '20250101_abc:1', 'third', 't2'), 'third');
  assert.equal(store.hermesSessionOf(bridge), 'third');

  // A session file naming an id the bridge would not send back: the bridge session itself.
  writeFileSync(join(store.dir, SESSIONS_DIR, 'gb-task-x.json'), JSON.stringify({ hermes_session_id: '../escape' }));
  assert.equal(store.hermesSessionOf('gb-task-x'), 'gb-task-x');
  for (const bad of ['../x', 'a..b', '.x', 'a/b']) assert.throws(() => store.hermesSessionOf(bad), (e) => isGatewayError(e) && e.code === 'INVALID_ARGUMENTS', bad);
});

test('isBridgeTempFile: only writeJsonAtomic names', () => {
  assert.equal(isBridgeTempFile('run.json.tmp-123-0a1b2c3d'), true);
  assert.equal(isBridgeTempFile('run.json.tmp-123-0a1b2c3'), false);
  assert.equal(isBridgeTempFile('run.json.tmp-x-0a1b2c3d'), false);
  assert.equal(isBridgeTempFile('notes.tmp'), false);
});

test('findRun with no tasks directory at all: no run', () => {
  assert.equal(new TaskStore(join(temp.make('hmcp-tasks-'), 'absent'), 4096).findRun('run_x'), undefined);
});
