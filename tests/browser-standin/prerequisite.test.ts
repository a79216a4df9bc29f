import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHROMIUM_INSTALL, chromiumPath, ensureChromium, type PrerequisiteHost } from '../../scripts/browser-prerequisite.js';

// The test command's browser prerequisite (scripts/browser-prerequisite.ts): with Chromium present
// it only looks; missing, as root on Debian it runs apt-get update then installs Debian's package
// (saying so); otherwise it fails with the exact command to run. The host is scripted here so no
// package is installed by the test.

function host(opts: { installed: boolean; canApt: boolean; failOn?: string }) {
  const ran: string[] = [];
  const said: string[] = [];
  let installed = opts.installed;
  const h: PrerequisiteHost = {
    chromium: () => (installed ? '/usr/bin/chromium' : undefined),
    canApt: () => opts.canApt,
    run: (command, args) => {
      ran.push([command, ...args].join(' '));
      if (opts.failOn && args[0] === opts.failOn) return 100;
      if (args[0] === 'install') installed = true;
      return 0;
    },
    say: (line) => said.push(line),
  };
  return { h, ran, said };
}

test('Chromium present: its path, and no apt-get at all', () => {
  const { h, ran, said } = host({ installed: true, canApt: true });
  assert.equal(ensureChromium(h), '/usr/bin/chromium');
  assert.deepEqual([ran, said], [[], []]);
});

test('missing, as root on Debian: apt-get update, then install chromium without recommends, announced', () => {
  const { h, ran, said } = host({ installed: false, canApt: true });
  assert.equal(ensureChromium(h), '/usr/bin/chromium');
  assert.deepEqual(ran, ['apt-get update', 'apt-get install -y --no-install-recommends chromium']);
  assert.match(said[0]!, /chromium is missing; installing Debian's package: apt-get update && apt-get install -y --no-install-recommends chromium/);
});

test('missing and not allowed to install: fails with the exact instruction, runs nothing', () => {
  const { h, ran } = host({ installed: false, canApt: false });
  assert.throws(() => ensureChromium(h), (err: Error) => err.message.includes(`As root, run: ${CHROMIUM_INSTALL}`));
  assert.deepEqual(ran, []);
});

test('a failing apt-get stops there and says what to run', () => {
  const { h, ran } = host({ installed: false, canApt: true, failOn: 'update' });
  assert.throws(() => ensureChromium(h), /apt-get update failed \(exit 100\); run as root: apt-get update && apt-get install/);
  assert.deepEqual(ran, ['apt-get update']);
});

test('the real lookup finds the chromium the test command made sure of', () => {
  assert.match(chromiumPath() ?? '', /\/chromium$/);
});
