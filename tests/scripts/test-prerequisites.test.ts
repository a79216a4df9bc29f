import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHROMIUM, CURL, ensurePackage, ensurePackages, executablePath, installCommand, NGINX, RIPGREP, TEST_PACKAGES, type DebianPackage, type PrerequisiteHost } from '../../scripts/test-prerequisites.js';

// The test command's Debian prerequisites (scripts/test-prerequisites.ts), for each package the tests
// run for real: present, it only looks; missing, as root on Debian it installs Debian's package
// (saying so); otherwise it fails with the exact command. Several missing: all are looked for first,
// then installed in one apt-get install, or named in one failure with one command for all of them.
// The host is scripted so nothing is installed: `installed` lists the packages present, and
// `apt-get install` adds the ones it names (except those in `installsNoExecutable`).

function host(opts: { installed: boolean | readonly string[]; canApt: boolean; failOn?: string; installsNoExecutable?: readonly string[] }) {
  const ran: string[] = [];
  const said: string[] = [];
  const present = new Set(opts.installed === true ? TEST_PACKAGES.map((p) => p.name) : opts.installed === false ? [] : opts.installed);
  const h: PrerequisiteHost = {
    find: (pkg) => (present.has(pkg.name) ? pkg.path : undefined),
    canApt: () => opts.canApt,
    run: (command, args) => {
      ran.push([command, ...args].join(' '));
      if (opts.failOn && args[0] === opts.failOn) return 100;
      if (args[0] === 'install') for (const name of args.slice(1).filter((a) => !a.startsWith('-'))) if (!opts.installsNoExecutable?.includes(name)) present.add(name);
      return 0;
    },
    say: (line) => said.push(line),
  };
  return { h, ran, said };
}

const names = (pkgs: readonly DebianPackage[]) => pkgs.map((p) => p.name);
/** Four of them, for the tests of several at once. */
const SOME = [CHROMIUM, NGINX, CURL, RIPGREP];

for (const pkg of TEST_PACKAGES) {
  test(`${pkg.name} present: its path, and no apt-get at all`, () => {
    const { h, ran, said } = host({ installed: true, canApt: true });
    assert.equal(ensurePackage(pkg, h), pkg.path);
    assert.deepEqual([ran, said], [[], []]);
  });

  test(`${pkg.name} missing, as root on Debian: apt-get update, then install without recommends, announced`, () => {
    const { h, ran, said } = host({ installed: false, canApt: true });
    assert.equal(ensurePackage(pkg, h), pkg.path);
    assert.deepEqual(ran, ['apt-get update', `apt-get install -y --no-install-recommends ${pkg.name}`]);
    assert.equal(said[0], `test-prerequisites: missing ${pkg.name}; installing Debian's package: ${installCommand(pkg)}`);
  });

  test(`${pkg.name} missing and not allowed to install: fails with the exact instruction, runs nothing`, () => {
    const { h, ran } = host({ installed: false, canApt: false });
    assert.throws(() => ensurePackage(pkg, h), (err: Error) => err.message.includes(`: ${pkg.name} (`) && err.message.includes(`Install it with one command, as root: ${installCommand(pkg)} (or through sudo: sudo sh -c '${installCommand(pkg)}')`));
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

test('every package present: each path, and no apt-get at all', () => {
  const { h, ran, said } = host({ installed: true, canApt: true });
  assert.deepEqual([...ensurePackages(TEST_PACKAGES, h)], TEST_PACKAGES.map((p) => [p.name, p.path]));
  assert.deepEqual([ran, said], [[], []]);
});

test('several missing, not allowed to install: one failure naming every missing package and who needs it, one command for all, sudo as the way without root', () => {
  const { h, ran } = host({ installed: ['curl'], canApt: false });
  const missing = [CHROMIUM, NGINX, RIPGREP];
  const command = installCommand(...missing);
  assert.equal(command, 'apt-get update && apt-get install -y --no-install-recommends chromium nginx ripgrep');
  assert.throws(
    () => ensurePackages(SOME, h),
    (err: Error) => {
      assert.equal(
        err.message,
        'the tests run Debian packages that are not installed: chromium (the browser tests), nginx (the public-URL tests), ripgrep (the search_files fidelity cases). ' +
          `Install all 3 with one command, as root: ${command} (or through sudo: sudo sh -c '${command}'), then run the tests again; run as root on Debian, the test command installs them itself.`,
      );
      return true;
    },
  );
  assert.deepEqual(ran, []);
});

test('several missing, as root on Debian: one apt-get update and one install naming all of them, announced once, each found after', () => {
  const { h, ran, said } = host({ installed: ['nginx'], canApt: true });
  const found = ensurePackages(SOME, h);
  assert.deepEqual([...found.keys()].sort(), names(SOME).sort());
  assert.deepEqual(ran, ['apt-get update', 'apt-get install -y --no-install-recommends chromium curl ripgrep']);
  assert.equal(said[0], `test-prerequisites: missing chromium, curl, ripgrep; installing Debian's packages: ${installCommand(CHROMIUM, CURL, RIPGREP)}`);
  assert.deepEqual(said.slice(1), [CHROMIUM.path, CURL.path, RIPGREP.path].map((p) => `test-prerequisites: using ${p}`));
});

test('several missing, as root, and the install leaves one without its executable: the failure names that one only', () => {
  const { h } = host({ installed: [], canApt: true, installsNoExecutable: ['ripgrep'] });
  assert.throws(() => ensurePackages(SOME, h), (err: Error) => err.message === `test-prerequisites: apt-get installed ripgrep but found no rg executable; run as root: ${installCommand(RIPGREP)}`);
});
