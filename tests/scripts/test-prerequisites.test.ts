import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CADDY, CHROMIUM, CURL, ensurePackage, executablePath, installCommand, NGINX, RIPGREP, SQLITE3, type PrerequisiteHost } from '../../scripts/test-prerequisites.js';

// The test command's Debian prerequisites (scripts/test-prerequisites.ts), for each package the tests
// run for real: present, it only looks; missing, as root on Debian it installs Debian's package
// (saying so); otherwise it fails with the exact command. The host is scripted so nothing is installed.

function host(opts: { installed: boolean; canApt: boolean; failOn?: string }) {
  const ran: string[] = [];
  const said: string[] = [];
  let installed = opts.installed;
  const h: PrerequisiteHost = {
    find: (pkg) => (installed ? pkg.path : undefined),
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

for (const pkg of [CHROMIUM, NGINX, CURL, RIPGREP, CADDY, SQLITE3]) {
  test(`${pkg.name} present: its path, and no apt-get at all`, () => {
    const { h, ran, said } = host({ installed: true, canApt: true });
    assert.equal(ensurePackage(pkg, h), pkg.path);
    assert.deepEqual([ran, said], [[], []]);
  });

  test(`${pkg.name} missing, as root on Debian: apt-get update, then install without recommends, announced`, () => {
    const { h, ran, said } = host({ installed: false, canApt: true });
    assert.equal(ensurePackage(pkg, h), pkg.path);
    assert.deepEqual(ran, ['apt-get update', `apt-get install -y --no-install-recommends ${pkg.name}`]);
    assert.match(said[0]!, new RegExp(`${pkg.name} is missing; installing Debian's package`));
  });

  test(`${pkg.name} missing and not allowed to install: fails with the exact instruction, runs nothing`, () => {
    const { h, ran } = host({ installed: false, canApt: false });
    assert.throws(() => ensurePackage(pkg, h), (err: Error) => err.message.includes(`As root, run: ${installCommand(pkg)}`));
    assert.deepEqual(ran, []);
  });

  test(`${pkg.name}: a failing apt-get stops there and says what to run`, () => {
    const { h, ran } = host({ installed: false, canApt: true, failOn: 'update' });
    assert.throws(() => ensurePackage(pkg, h), /apt-get update failed \(exit 100\); run as root: apt-get update && apt-get install/);
    assert.deepEqual(ran, ['apt-get update']);
  });

  test(`the real lookup finds the ${pkg.name} the test command made sure of`, () => {
    assert.match(executablePath(pkg) ?? '', new RegExp(`/${pkg.executable}$`));
  });
}
