import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prompt, sessionIdFor, taskFingerprint, type TaskArgs } from '../../../../supervisor/tools/agent-tasks/task/prompt.js';

test('a named session is shared per agent; without one the task runs in a session of its own', () => {
  assert.equal(sessionIdFor('coder', 'task-1', 'review'), 'gb-sess-coder-review');
  assert.equal(sessionIdFor('coder', 'task-1', undefined), 'gb-task-task-1');
  assert.equal(sessionIdFor('coder', 'task-1', ''), 'gb-task-task-1', 'an empty session name is no session');
});

test('the prompt: the task alone, then the task record naming the id and the directory', () => {
  assert.equal(
    prompt({ task: 'Fix the bug', mode: 'sync' }, 'task-1', '/state/tasks/task-1'),
    '## Task\nFix the bug\n\n## Task record\nTask id: task-1\nTask directory: /state/tasks/task-1 (write any artifact files here; the requester reads them with hermes_files)',
  );
});

test('the prompt: context, deliverable and constraints in that order, constraints as a list; empty ones left out', () => {
  const full = prompt({ task: 'T', mode: 'async', context: 'C', deliverable: 'D', constraints: ['one', 'two'] }, 'x', '/d');
  assert.equal(full, '## Task\nT\n\n## Context\nC\n\n## Deliverable\nD\n\n## Constraints\n- one\n- two\n\n## Task record\nTask id: x\nTask directory: /d (write any artifact files here; the requester reads them with hermes_files)');
  const sparse = prompt({ task: 'T', mode: 'async', context: '', deliverable: '', constraints: [] }, 'x', '/d');
  assert.doesNotMatch(sparse, /## (Context|Deliverable|Constraints)/);
});

test('the fingerprint: the task, context, deliverable, constraints and session; not the mode, the id or the agent', () => {
  const base: TaskArgs = { task: 'T', mode: 'sync', context: 'C', constraints: ['a'] };
  const fp = taskFingerprint(base);
  assert.match(fp, /^[0-9a-f]{64}$/);
  assert.equal(taskFingerprint({ ...base, mode: 'async', id: 'other', agent: 'other' }), fp);
  for (const changed of [{ task: 'U' }, { context: 'D' }, { deliverable: 'X' }, { constraints: ['b'] }, { constraints: ['a', 'a'] }, { session: 's' }]) {
    assert.notEqual(taskFingerprint({ ...base, ...changed }), fp, JSON.stringify(changed));
  }
  // Absent fields are the same as their defaults: no constraints is an empty list.
  assert.equal(taskFingerprint({ task: 'T', mode: 'sync' }), taskFingerprint({ task: 'T', mode: 'sync', constraints: [] }));
  // An empty context is not the same as none.
  assert.notEqual(taskFingerprint({ task: 'T', mode: 'sync' }), taskFingerprint({ task: 'T', mode: 'sync', context: '' }));
});
