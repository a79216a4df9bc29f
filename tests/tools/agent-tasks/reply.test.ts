import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { publicResult, resultFromReply, taskArtifacts } from '../../../supervisor/tools/agent-tasks/reply.js';
import { tempDirs } from '../../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

/** A task directory holding the bridge's own files, a temp file, a subdirectory, a symlink and two artifacts. */
function taskDir(): string {
  const dir = temp.make('hmcp-reply-');
  for (const name of ['run.json', 'result.json', 'result.json.tmp-123-0a1b2c3d', 'z-report.md', 'a-notes.txt']) writeFileSync(join(dir, name), 'x');
  mkdirSync(join(dir, 'sub'));
  symlinkSync(join(dir, 'a-notes.txt'), join(dir, 'link.txt'));
  return dir;
}

describe('taskArtifacts', () => {
  test("the top-level regular files, sorted, without the bridge's own files, temp files, directories or symlinks", () => {
    assert.deepEqual(taskArtifacts(taskDir()), ['a-notes.txt', 'z-report.md']);
  });
  test('a directory that does not exist has none', () => {
    assert.deepEqual(taskArtifacts(join(temp.make('hmcp-reply-'), 'absent')), []);
  });
});

describe('resultFromReply', () => {
  const empty = () => temp.make('hmcp-reply-empty-');

  test('a plain answer is the summary; completed; the directory files are the artifacts; details kept', () => {
    assert.deepEqual(resultFromReply('t1', 'All done.', taskDir(), { agent: 'hermes' }), {
      id: 't1',
      status: 'completed',
      summary: 'All done.',
      artifacts: ['a-notes.txt', 'z-report.md'],
      next_steps: [],
      details: { agent: 'hermes' },
    });
  });

  test('a JSON answer is taken field by field; the bridge details win over the agent details', () => {
    const text = JSON.stringify({ status: 'failed', summary: 'could not build', artifacts: ['log.txt'], next_steps: ['install gcc'], details: { exit: 2, agent: 'spoofed' } });
    assert.deepEqual(resultFromReply('t2', text, taskDir(), { agent: 'hermes' }), {
      id: 't2',
      status: 'failed',
      summary: 'could not build',
      artifacts: ['log.txt'],
      next_steps: ['install gcc'],
      details: { exit: 2, agent: 'hermes' },
    });
  });

  test('one ```json fence (or a bare ``` fence) around the object is read the same', () => {
    for (const fence of ['```json', '```']) {
      const r = resultFromReply('t', `  ${fence}\n{"summary": "fenced", "artifacts": []}\n\`\`\`  \n`, empty(), {});
      assert.deepEqual([r.summary, r.artifacts], ['fenced', []]);
    }
  });

  test('a status other than completed or failed, wrong field types and non-object details fall back', () => {
    const r = resultFromReply('t', JSON.stringify({ status: 'cancelled', summary: 'S', artifacts: ['ok', 3], next_steps: 'do it', details: ['a'] }), taskDir(), { k: 1 });
    assert.deepEqual(r, { id: 't', status: 'completed', summary: 'S', artifacts: ['a-notes.txt', 'z-report.md'], next_steps: [], details: { k: 1 } });
  });

  test('JSON without a string summary, an array, broken JSON or text around a fence: the whole text is the summary', () => {
    for (const text of ['{"status": "failed", "summary": 5}', '[1, 2]', '{"summary": ', 'Here:\n```json\n{"summary": "x"}\n```']) {
      const r = resultFromReply('t', text, empty(), {});
      assert.equal(r.summary, text, text);
    }
    // A JSON object without a summary still gives its status.
    assert.equal(resultFromReply('t', '{"status": "failed"}', empty(), {}).status, 'failed');
  });
});

test('publicResult: the five public fields, details left out', () => {
  assert.deepEqual(publicResult({ id: 'i', status: 'completed', summary: 's', artifacts: ['a'], next_steps: ['n'], details: { secret: true } }), {
    id: 'i',
    status: 'completed',
    summary: 's',
    artifacts: ['a'],
    next_steps: ['n'],
  });
});
