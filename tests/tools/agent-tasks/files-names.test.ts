import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readTaskPath } from '../../../supervisor/tools/agent-tasks/files.js';
import { taskArtifacts } from '../../../supervisor/tools/agent-tasks/reply.js';
import { tempDirs } from '../../helpers/temp.js';

// hermes_files names: a colon is an ordinary POSIX file-name character (no drive letters here),
// and only the bridge's own atomic-write temp files (`<name>.tmp-<pid>-<8 hex>`) are hidden, not
// every name that happens to contain `.tmp-`.

const temp = tempDirs();
after(() => temp.removeAll());
const limits = { maxBytes: 1024, maxEntries: 50 };

test('a:b.txt is served; only <name>.tmp-<pid>-<hex> is hidden from listings and artifacts', () => {
  const task = join(temp.make('hmcp-names-'), 't1');
  mkdirSync(task);
  writeFileSync(join(task, 'a:b.txt'), 'colon\n');
  writeFileSync(join(task, 'notes.tmp-draft.md'), 'draft\n');
  writeFileSync(join(task, 'result.json.tmp-4242-0123abcd'), '{');
  assert.equal((readTaskPath(task, 't1', 'a:b.txt', limits) as { content: string }).content, 'colon\n');
  const names = (readTaskPath(task, 't1', '', limits) as { entries: Array<{ name: string }> }).entries.map((e) => e.name);
  assert.deepEqual(names, ['a:b.txt', 'notes.tmp-draft.md']);
  assert.deepEqual(taskArtifacts(task), ['a:b.txt', 'notes.tmp-draft.md']);
});
