import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { nodeHeadersPrefix } from '../../scripts/node-binary.js';
import { tempDirs } from '../helpers/temp.js';

// The headers node-gyp is pointed at (npm_config_nodedir) in CI's installs: the prefix of the real
// node binary (symlinks followed, as /usr/bin/node or a version manager's shim resolve), when its
// include/node is there; otherwise nothing, and node-gyp does as it always does.

const temp = tempDirs();
after(() => temp.removeAll());

function prefix(withHeaders: boolean): string {
  const dir = realpathSync(temp.make('hmcp-node-prefix-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'node'), '');
  if (withHeaders) {
    mkdirSync(join(dir, 'include', 'node'), { recursive: true });
    writeFileSync(join(dir, 'include', 'node', 'node_api.h'), '');
  }
  return dir;
}

test("a node binary's own prefix when it holds include/node, followed through a symlink", () => {
  const dir = prefix(true);
  const link = join(temp.make('hmcp-node-link-'), 'node');
  symlinkSync(join(dir, 'bin', 'node'), link);
  assert.equal(nodeHeadersPrefix(join(dir, 'bin', 'node')), dir);
  assert.equal(nodeHeadersPrefix(link), dir);
});

test('no headers there: undefined', () => {
  assert.equal(nodeHeadersPrefix(join(prefix(false), 'bin', 'node')), undefined);
});
