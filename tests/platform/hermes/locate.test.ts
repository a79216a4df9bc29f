import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../supervisor/platform/config.js';
import { hermesProbe } from '../../../supervisor/platform/hermes/install-report.js';
import { locateHermes, type HermesInstall } from '../../../supervisor/platform/hermes/locate.js';
import { hermes } from '../../helpers/hermes.js';
import { checkout, interpreter, site } from '../../helpers/hermes-checkout.js';
import { tempDirs } from '../../helpers/temp.js';

// Which Hermes Agent the gateway fronts: found where Hermes' own installers put its interpreter (an
// explicit HERMES_AGENT_PYTHON; the source checkout's venv, then .venv; the environment Hermes'
// package manager committed for the checkout; a venv under $HERMES_HOME/venvs whose Hermes is the
// checkout's), its version read from the install stamp, else the checkout's pyproject.toml, else
// the installed distribution. The interpreters are the pinned real Hermes venv's; the checkouts
// are made of that Hermes' own installed hermes_cli package with the stamp and pyproject.toml an
// installer writes beside it.

const temp = tempDirs();
after(() => temp.removeAll());

const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** locateHermes as a gateway with `env` runs it; HOME a fresh directory unless given, so the machine's ~/.hermes is never looked at. */
function locate(env: Record<string, string>): Promise<HermesInstall> {
  return locateHermes(loadConfig({ PATH, HOME: temp.make('hmcp-locate-user-'), ...env }, { inheritedEnvironment: { PATH } }));
}

test('HERMES_AGENT_PYTHON naming the pinned venv: its version from the installed distribution, supported', async () => {
  const home = temp.make('hmcp-locate-');
  const install = await locate({ HERMES_HOME: home, HERMES_AGENT_PYTHON: hermes().python });
  assert.equal(install.state, 'found', JSON.stringify(install));
  assert.equal(install.release.version, hermes().version);
  if (install.state !== 'found') return;
  assert.equal(install.pythonFrom, 'HERMES_AGENT_PYTHON');
  assert.equal(install.facts.versionFrom, 'distribution');
  assert.deepEqual(install.facts.distribution, { name: hermes().distribution, version: hermes().version });
  assert.equal(install.facts.tree, realpathSync(site()));
  const probe = hermesProbe(install);
  assert.equal(probe.ready, true);
  assert.equal(probe.status, 'supported');
  assert.equal(probe.details?.supported_range, '>=0.19.0,<0.24');
});

test("a checkout under $HERMES_HOME with its venv: the install stamp's version, which `hermes --version` reports", async () => {
  const home = temp.make('hmcp-locate-');
  const tree = checkout(join(home, 'hermes-agent'), { stamp: '0.23.5', pyproject: '0.23.5' });
  interpreter(join(tree, 'venv', 'bin', 'python'));
  const install = await locate({ HERMES_HOME: home });
  assert.equal(install.state, 'found', JSON.stringify(install));
  if (install.state !== 'found') return;
  assert.equal(install.python, join(tree, 'venv', 'bin', 'python'));
  assert.equal(install.pythonFrom, 'source tree venv');
  assert.equal(install.facts.version, '0.23.5');
  assert.equal(install.facts.versionFrom, 'install stamp');
  assert.equal(install.facts.tree, realpathSync(tree));
  assert.equal(install.release.supported, true);
});

test("no stamp, or Hermes' 0.0.0 placeholder in it: the checkout's pyproject.toml; venv wins over .venv", async () => {
  const home = temp.make('hmcp-locate-');
  const tree = checkout(join(home, 'hermes-agent'), { stamp: '0.0.0', pyproject: '0.21.3' });
  interpreter(join(tree, '.venv', 'bin', 'python'));
  let install = await locate({ HERMES_HOME: home });
  assert.equal(install.state, 'found', JSON.stringify(install));
  assert.equal(install.python, join(tree, '.venv', 'bin', 'python'));
  assert.equal(install.state === 'found' && install.facts.versionFrom, 'pyproject.toml');
  assert.equal(install.release.version, '0.21.3');
  interpreter(join(tree, 'venv', 'bin', 'python'));
  install = await locate({ HERMES_HOME: home });
  assert.equal(install.python, join(tree, 'venv', 'bin', 'python'));
});

test("the environment Hermes' package manager committed for the checkout (installs/<key>/facts.json)", async () => {
  const home = temp.make('hmcp-locate-');
  const tree = checkout(join(home, 'hermes-agent'), { stamp: '0.22.2' });
  const key = createHash('sha256').update(realpathSync(tree)).digest('hex').slice(0, 16);
  const environment = join(home, 'installs', key, 'environments', 'gen-1');
  mkdirSync(environment, { recursive: true });
  writeFileSync(join(environment, 'pyvenv.cfg'), 'home = /usr/bin\n');
  interpreter(join(environment, 'bin', 'python'));
  writeFileSync(join(home, 'installs', key, 'facts.json'), JSON.stringify({ packages: { venv: { environment } } }));
  const install = await locate({ HERMES_HOME: home });
  assert.equal(install.state, 'found', JSON.stringify(install));
  assert.equal(install.python, join(environment, 'bin', 'python'));
  assert.equal(install.pythonFrom, "Hermes' dependency environment");
  assert.equal(install.release.version, '0.22.2');
});

test("the service user's ~/.hermes (HOME) is a root too: the environment committed there for the checkout is found", async () => {
  const home = temp.make('hmcp-locate-');
  const user = temp.make('hmcp-locate-user-');
  const tree = checkout(join(home, 'hermes-agent'), { stamp: '0.22.2' });
  const key = createHash('sha256').update(realpathSync(tree)).digest('hex').slice(0, 16);
  const environment = join(user, '.hermes', 'installs', key, 'environments', 'gen-1');
  mkdirSync(environment, { recursive: true });
  writeFileSync(join(environment, 'pyvenv.cfg'), 'home = /usr/bin\n');
  interpreter(join(environment, 'bin', 'python'));
  writeFileSync(join(user, '.hermes', 'installs', key, 'facts.json'), JSON.stringify({ packages: { venv: { environment } } }));
  assert.equal((await locate({ HERMES_HOME: home })).state, 'not_installed', 'another HOME: not looked at');
  const install = await locate({ HERMES_HOME: home, HOME: user });
  assert.equal(install.state, 'found', JSON.stringify(install));
  assert.equal(install.python, join(environment, 'bin', 'python'));
  assert.equal(install.pythonFrom, "Hermes' dependency environment");
});

test('a venv under $HERMES_HOME/venvs counts only when its own Hermes is found; one without Hermes is passed over', async () => {
  const home = temp.make('hmcp-locate-');
  // A plugin's venv: a Python without Hermes.
  const plugin = join(home, 'venvs', 'a-plugin', 'bin', 'python');
  mkdirSync(join(plugin, '..'), { recursive: true });
  writeFileSync(plugin, '#!/bin/sh\nexec /usr/bin/python3 "$@"\n');
  chmodSync(plugin, 0o755);
  let install = await locate({ HERMES_HOME: home });
  assert.equal(install.state, 'not_installed', JSON.stringify(install));
  // Hermes' own venv (its distribution installed in it).
  interpreter(join(home, 'venvs', 'hermes', 'bin', 'python'));
  install = await locate({ HERMES_HOME: home });
  assert.equal(install.state, 'found', JSON.stringify(install));
  assert.equal(install.pythonFrom, '$HERMES_HOME/venvs');
  assert.equal(install.release.version, hermes().version);
});

test('HERMES_MCP_HERMES_VERSION is followed instead of what is found (and a version that is not one is refused at start)', async () => {
  const home = temp.make('hmcp-locate-');
  const install = await locate({ HERMES_HOME: home, HERMES_AGENT_PYTHON: hermes().python, HERMES_MCP_HERMES_VERSION: '0.23.5' });
  assert.equal(install.release.version, '0.23.5');
  assert.equal(install.declared, '0.23.5');
  const probe = hermesProbe(install);
  assert.equal(probe.details?.version_from, 'HERMES_MCP_HERMES_VERSION');
  assert.match(String(probe.details?.found), new RegExp(`^Hermes Agent ${hermes().version.replace(/\./g, '\\.')}`));
  assert.throws(() => loadConfig({ HERMES_HOME: home, HERMES_MCP_HERMES_VERSION: 'latest' }), /HERMES_MCP_HERMES_VERSION must be a Hermes Agent version/);
});

test('nothing installed: ready (nothing to refuse), saying where it looked; the gateway follows the newest Hermes it knows', async () => {
  const home = temp.make('hmcp-locate-');
  const install = await locate({ HERMES_HOME: home });
  assert.equal(install.state, 'not_installed');
  assert.equal(install.release.version, undefined);
  const probe = hermesProbe(install);
  assert.equal(probe.ready, true);
  assert.equal(probe.status, 'not_found');
  assert.match(probe.reason ?? '', new RegExp(`looked at ${join(home, 'hermes-agent', 'venv', 'bin', 'python')}`));
});

test('an interpreter that never answers: failed within hermesAgentVersionTimeoutSeconds, /readyz not ready', async () => {
  const home = temp.make('hmcp-locate-');
  // A stand-in for a hung interpreter (real Hermes does not hang on demand): it sleeps, as its only process.
  const python = join(home, 'python');
  writeFileSync(python, '#!/bin/sh\nexec sleep 60\n');
  chmodSync(python, 0o755);
  const started = performance.now();
  const install = await locate({ HERMES_HOME: home, HERMES_AGENT_PYTHON: python, HERMES_MCP_HERMES_AGENT_VERSION_TIMEOUT_SECONDS: '1' });
  assert.ok(performance.now() - started < 10_000);
  assert.equal(install.state, 'failed');
  const probe = hermesProbe(install);
  assert.equal(probe.ready, false);
  assert.match(probe.reason ?? '', /^HERMES_AGENT_VERSION_UNKNOWN: .* did not say which Hermes Agent it has within 1 s/);
});
