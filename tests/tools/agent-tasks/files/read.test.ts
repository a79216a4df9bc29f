import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isGatewayError } from '../../../../shared/errors.js';
import { readTaskPath } from '../../../../supervisor/tools/agent-tasks/files/read.js';
import { taskArtifacts } from '../../../../supervisor/tools/agent-tasks/reply.js';
import { tempDirs } from '../../../helpers/temp.js';
import { within } from '../../../helpers/wait.js';

// hermes_files' confinement: a traversal corpus (.., encoded, absolute, backslash, NUL, symlink
// mid-path, symlink out, FIFO, non-UTF-8, oversize) is refused, and nothing hangs.

const temp = tempDirs();
const limits = { maxBytes: 1024, maxEntries: 3 };
let task: string;
let outside: string;

before(() => {
  const root = temp.make('hmcp-files-');
  task = join(root, 'tasks', 't1');
  outside = join(root, 'secret');
  mkdirSync(join(task, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'key.txt'), 'sk-outside');
  writeFileSync(join(task, 'ok.md'), 'fine\n');
  writeFileSync(join(task, 'sub', 'deep.txt'), 'deep\n');
  writeFileSync(join(task, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  writeFileSync(join(task, 'nul.txt'), Buffer.from('a\0b'));
  writeFileSync(join(task, 'big.txt'), 'x'.repeat(2000));
  symlinkSync(outside, join(task, 'out'));
  symlinkSync(join(task, 'sub'), join(task, 'loop'));
  symlinkSync(join(outside, 'key.txt'), join(task, 'link.txt'));
  execFileSync('mkfifo', [join(task, 'fifo')]);
});
after(() => temp.removeAll());

function codeOf(path: string): string {
  try {
    readTaskPath(task, 't1', path, limits);
  } catch (e) {
    if (isGatewayError(e)) return e.code;
    throw e;
  }
  return 'ALLOWED';
}

describe('hermes_files confinement', () => {
  test('regular files and directories inside the task are served', () => {
    assert.equal((readTaskPath(task, 't1', 'ok.md', limits) as { content: string }).content, 'fine\n');
    assert.equal((readTaskPath(task, 't1', 'sub/deep.txt', limits) as { content: string }).content, 'deep\n');
    const listing = readTaskPath(task, 't1', '', limits) as { entries: unknown[]; count: number; truncated: boolean };
    assert.equal(listing.count, 3);
    assert.equal(listing.truncated, true);
  });

  const corpus: Array<[string, string]> = [
    ['../secret/key.txt', 'INVALID_PATH'],
    ['sub/../../secret/key.txt', 'INVALID_PATH'],
    ['..', 'INVALID_PATH'],
    ['%2e%2e/secret/key.txt', 'FILE_NOT_FOUND'],
    ['..%2fsecret', 'FILE_NOT_FOUND'],
    ['/etc/passwd', 'INVALID_PATH'],
    ['C:/Windows', 'FILE_NOT_FOUND'], // a valid POSIX name (no such directory here), not a drive
    ['sub\\..\\..\\secret', 'INVALID_PATH'],
    ['ok.md\0.txt', 'INVALID_PATH'],
    ['out/key.txt', 'INVALID_PATH'],
    ['loop/deep.txt', 'INVALID_PATH'],
    ['link.txt', 'INVALID_PATH'],
    ['out', 'INVALID_PATH'],
    ['fifo', 'FILE_NOT_REGULAR'],
    ['latin1.txt', 'FILE_BINARY'],
    ['nul.txt', 'FILE_BINARY'],
    ['big.txt', 'FILE_TOO_LARGE'],
    ['ok.md/x', 'FILE_NOT_FOUND'],
  ];
  for (const [path, code] of corpus) {
    test(`refused: ${JSON.stringify(path)} -> ${code}`, async () => {
      assert.equal(await within(Promise.resolve().then(() => codeOf(path)), 2000, path), code);
    });
  }
});

// hermes_files names: a colon is an ordinary POSIX file-name character (no drive letters here),
// and only the bridge's own atomic-write temp files (`<name>.tmp-<pid>-<8 hex>`) are hidden, not
// every name that happens to contain `.tmp-`.

const nameLimits = { maxBytes: 1024, maxEntries: 50 };

test('a:b.txt is served; only <name>.tmp-<pid>-<hex> is hidden from listings and artifacts', () => {
  const task = join(temp.make('hmcp-names-'), 't1');
  mkdirSync(task);
  writeFileSync(join(task, 'a:b.txt'), 'colon\n');
  writeFileSync(join(task, 'notes.tmp-draft.md'), 'draft\n');
  writeFileSync(join(task, 'result.json.tmp-4242-0123abcd'), '{');
  assert.equal((readTaskPath(task, 't1', 'a:b.txt', nameLimits) as { content: string }).content, 'colon\n');
  const names = (readTaskPath(task, 't1', '', nameLimits) as { entries: Array<{ name: string }> }).entries.map((e) => e.name);
  assert.deepEqual(names, ['a:b.txt', 'notes.tmp-draft.md']);
  assert.deepEqual(taskArtifacts(task), ['a:b.txt', 'notes.tmp-draft.md']);
});
