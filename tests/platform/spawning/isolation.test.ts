import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { subreaperAddon } from '../../../shared/subreaper.js';
import { detectIsolation } from '../../../supervisor/platform/spawning/isolation.js';

const hasAddon = subreaperAddon() !== null;
const PROCESS_GROUP = { mode: 'process-group', degraded: true, prefix: [], reason: 'no PID namespace and no subreaper addon; process-group kill only' } as const;
const SUBREAPER = { mode: 'subreaper', degraded: true, prefix: [], reason: 'no PID namespace available; child subreaper + process-group kill + tagged sweep (best effort)' } as const;

test('forcing process-group gives process-group whatever the host could do', () => {
  assert.deepEqual(detectIsolation('process-group'), PROCESS_GROUP);
});

test('forcing subreaper gives subreaper when the addon loads, else falls to process-group (never up to a namespace)', () => {
  assert.deepEqual(detectIsolation('subreaper'), hasAddon ? SUBREAPER : PROCESS_GROUP);
});

test('unforced (or forced to an unknown mode): a PID namespace when the probe runs, with the exact prefix a worker starts under', () => {
  const report = detectIsolation();
  assert.deepEqual(detectIsolation('chroot'), report, 'an unknown mode is no mode');
  assert.deepEqual(detectIsolation(''), report);
  if (report.mode === 'pid-namespace') {
    const isRoot = process.getuid?.() === 0;
    assert.deepEqual(report, {
      mode: 'pid-namespace',
      degraded: false,
      prefix: ['setpriv', '--pdeathsig', 'KILL', 'unshare', ...(isRoot ? [] : ['--map-root-user']), '--pid', '--fork', '--kill-child', '--mount-proc'],
      reason: 'PID namespace per worker with parent-death signal',
    });
    // The prefix really runs a command in a fresh namespace, where it is pid 1's child.
    const inside = spawnSync(report.prefix[0]!, [...report.prefix.slice(1), 'sh', '-c', 'echo $$'], { encoding: 'utf8' });
    assert.equal(inside.stdout.trim(), '1');
  } else {
    assert.deepEqual(report, hasAddon ? SUBREAPER : PROCESS_GROUP);
  }
});
